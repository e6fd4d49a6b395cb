"""The launcher-estimate replica of 2026-11-28-h200-splitk-latency/cost_model/model.py, extended with
this round's candidates (gemm_small.loom: m14 64 x 64 p8, m15 64 x 32 p8, m16 / m17 64 x 128
splitk(2) / splitk(4), m18 64 x 256 splitk(2)). check19.py verifies it against r1's estimates."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '2026-11-28-h200-splitk-latency', 'cost_model'))
import model
from model import *
model.P.update({14: (64, 64, 64, 128, 8192, 8192, 1, 1, 1), 15: (64, 32, 64, 64, 8192, 4096, 1, 1, 1),
                16: (64, 128, 64, 256, 8192, 16384, 2, 1, 1), 17: (64, 128, 64, 256, 8192, 16384, 4, 1, 1),
                18: (64, 256, 64, 512, 8192, 32768, 2, 1, 1)})
P = model.P
