#!/usr/bin/env bash
# Session 52, device call 2: examples/gemm (HEAD) as generated (base), with each K step's full barriers merged
# into one (onebar, build-gpu/s52/onebar.py), and with the tensor maps' L2 promotion 256 B (l2p) — timed on
# mid and large shapes for the mappings large calls pick, two rounds of the three builds.
set -u
mkdir -p $OUT
tar xJf build-gpu/s52.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
SH="--shape 2232x3288x3296 --shape 4096x4096x4096 --shape 6456x2912x5496 --shape 5264x7640x7224 --shape 8192x8192x1024 --shape 3595x7440x2096 --shape 1880x5120x3840 --shape 8192x8192x8192"
for round in 1 2; do
  for v in base onebar l2p; do
    timeout 150 build-gpu/s52/bin/$v --maps 0,1,6,9,10,12,21,25 $SH --seed 52$round --out $OUT/$v-$round.md \
      --command "bash bench/results/2026-12-06-h100-s52/r2.sh" > /tmp/$v-$round.log 2>&1
    echo "$v round $round rc=$? $(el)"; grep -c "disagree" $OUT/$v-$round.md
  done
done
echo "done $(el)"
