#!/usr/bin/env bash
# On the development machine, from the repo root: the kernels r1.sh needs in build-gpu/s41/gen (carry build-gpu/s41).
#   flash_attention_2       examples/flash_attention_2 as the committed compiler emits it (the guarded deferred mma)
#   flash_attention_2_dbuf  the same file through dbuf.py (first iteration peeled, P double-buffered, unrolled by 2)
set -eu
S=build-gpu/s41/gen; H=bench/results/2026-12-05-cpu-peel; L=${LOOM:-build/loom}
mkdir -p $S/flash_attention_2_dbuf
$L compile examples/flash_attention_2/flash_attention_2.loom -o $S/flash_attention_2
cp $S/flash_attention_2/mha.h $S/flash_attention_2_dbuf/
python3 $H/dbuf.py $S/flash_attention_2/mha.cu $S/flash_attention_2_dbuf/mha.cu
for d in flash_attention_2 flash_attention_2_dbuf; do W=/tmp bash $H/scan.sh $S/$d $d; done
