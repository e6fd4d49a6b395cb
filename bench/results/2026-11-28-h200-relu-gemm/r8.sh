#!/usr/bin/env bash
# Round 8 (device, one command): c10's mappings by index at few-tile, long-K shapes.
mkdir -p /tmp/out/c10b && OUT=/tmp/out/c10b LOOM_GEN_DIR=build-gpu/s24/gen7 timeout 200 bash bench/fused.sh --only relu_gemm \
  --by-mapping --shapes 256x256x8192,384x512x6144,128x1024x4096,512x512x8192,272x96x2808,1024x1024x1024
