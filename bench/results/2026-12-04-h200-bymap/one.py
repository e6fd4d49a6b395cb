#!/usr/bin/env python3
"""one.py LIB ENTRY MAPPING MxNxK: one call of mapping MAPPING of a loom library (after two warm-up
calls), for a profiler (ncu --launch-skip 2 --launch-count 1). ENTRY: gemm or gemm_bias_act."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from loom_abi import LoomLib, LoomTensor, loom_tensor  # noqa: E402

path, entry, m, shape = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
M, N, K = (int(x) for x in shape.split("x"))
T = LoomTensor
lib = LoomLib(path, entry, [T, T, T] if entry == "gemm" else [T, T, T, T])
torch.manual_seed(1)
a = (torch.rand(M, K, device="cuda") * 2 - 1).to(torch.bfloat16)
b = (torch.rand(K, N, device="cuda") * 2 - 1).to(torch.bfloat16)
bias = (torch.rand(N, device="cuda") * 2 - 1).to(torch.bfloat16)
c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
args = (loom_tensor(c), loom_tensor(a), loom_tensor(b)) + (() if entry == "gemm" else (loom_tensor(bias),))
lib.force_mapping = m
for _ in range(3):
    lib(*args)
torch.cuda.synchronize()
