#!/usr/bin/env bash
# Session 50, device call 5 (carry build-gpu/s50e.tar.xz: est built from est.cu against prepare3.sh's 23-mapping
# gemm_bias_act, and shapes.txt, the 35 shapes of gba-alt-bymap.md): the cost model's estimate and load_bytes() of
# every mapping at those shapes on this GPU (cluster_slots answered by cudaOccupancyMaxActiveClusters).
# Run as: mkdir -p $OUT && tar -C build-gpu -xJf build-gpu/s50e.tar.xz && ./build-gpu/s50e/est < build-gpu/s50e/shapes.txt > $OUT/est-h100.txt
set -eu
mkdir -p $OUT && tar -C build-gpu -xJf build-gpu/s50e.tar.xz && ./build-gpu/s50e/est < build-gpu/s50e/shapes.txt > $OUT/est-h100.txt
