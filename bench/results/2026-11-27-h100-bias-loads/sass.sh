#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/../.."
D=build-gpu/s18/one
for x in gba gemm; do
  e=$(ls $D/$x/*.cu)
  /usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -I$D/$x -cubin $e -o /tmp/$x.cubin &
done
wait
for x in gba gemm; do /usr/local/cuda/bin/cuobjdump -sass /tmp/$x.cubin > $OUT/$x.sass; done
ls -la $OUT
