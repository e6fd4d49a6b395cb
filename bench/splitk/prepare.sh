#!/usr/bin/env bash
# bench/splitk/prepare.sh DIR [BEFORE_LOOM]: the directory bench/splitk/device.sh runs in on the GPU
# (bench/results/2026-11-25-h100-gemm-splitk.md): runtime/, the harness sources, and the generated
# gemm / batched_gemm kernels of this checkout (gen/), of another loom binary (gen-before/: the
# kernels before split-K), and of mappings forced to one split-K candidate (gen-s2_128, gen-s4_128,
# gen-s4_64: the default mapping made 128 x 128 splitk(2), 128 x 128 splitk(4), 128 x 64 splitk(4),
# by bench/splitk/force_split.py). Device call: run with carry=[DIR], `cd DIR && bash device.sh`.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
before=${2:-}
loom=$root/build/loom
mkdir -p "$dir/bench" "$dir/tests/gpu"
cp -r "$root/runtime" "$dir/"
cp "$root/bench/gemm_bench.cu" "$root/bench/gemm_harness.cuh" "$dir/bench/"
cp "$root/tests/gpu/gemm_correctness.cu" "$dir/tests/gpu/"
cp "$root/bench/splitk/device.sh" "$dir/"
for e in gemm batched_gemm; do
  "$loom" compile "$root/examples/$e/$e.loom" -o "$dir/gen/$e"
  [ -n "$before" ] && "$before" compile "$root/examples/$e/$e.loom" -o "$dir/gen-before/$e"
  for v in "s2_128 128 128 64 4 2" "s4_128 128 128 64 4 4" "s4_64 64 64 128 3 4"; do
    set -- $v
    mkdir -p "$dir/forced-$1"
    python3 "$root/bench/splitk/force_split.py" "$root/examples/$e/$e.loom" "$dir/forced-$1/$e.loom" "$2" "$3" "$4" "$5" "$6"
    "$loom" compile "$dir/forced-$1/$e.loom" -o "$dir/gen-$1/$e"
  done
done
