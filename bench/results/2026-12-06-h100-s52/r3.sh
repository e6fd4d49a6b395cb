#!/usr/bin/env bash
# Session 52, device call 3: examples/gemm (HEAD) as generated (base) and with the tensor maps' L2 promotion 64 B
# (l2p64) and none (l2none) instead of 128 B, and with an L2 prefetch of the boxes one ring depth ahead (pf,
# build-gpu/s52/prefetch.py), the same shapes and mappings as r2.
set -u
mkdir -p $OUT
tar xJf build-gpu/s52b.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
SH="--shape 2232x3288x3296 --shape 4096x4096x4096 --shape 6456x2912x5496 --shape 5264x7640x7224 --shape 8192x8192x1024 --shape 3595x7440x2096 --shape 1880x5120x3840 --shape 8192x8192x8192"
for round in 1; do
  for v in base l2p64 l2none pf base2; do
    timeout 150 build-gpu/s52/bin/${v%2} --maps 0,1,6,9,10,12,21,25 $SH --seed 52$round --out $OUT/$v-$round.md \
      --command "bash bench/results/2026-12-06-h100-s52/r3.sh" > /tmp/$v-$round.log 2>&1
    echo "$v round $round rc=$? $(el)"; grep -c "disagree" $OUT/$v-$round.md
  done
done

# then: examples/gemm + six split-K candidates for small, long-K calls (build-gpu/s52/sk/gemm.loom: transposed 48 x 128
# splitk(4) 8 stages, 112 x 128 splitk(2) 4 stages, 80 x 128 splitk(4) 6 stages, 64 x 128 on one warpgroup splitk(2)
# and splitk(4) 6 stages, transposed 176 x 128 splitk(2) 3 stages: mappings 28-33), every mapping on small shapes
SM="--shape 600x1248x4736 --shape 505x2856x1048 --shape 977x104x6336 --shape 195x1680x1976 --shape 288x1976x1192 --shape 399x176x3920 --shape 112x3712x3752 --shape 104x920x4697 --shape 472x264x6973 --shape 1264x2688x7968 --shape 656x5248x7728 --shape 171x7280x200 --shape 165x5240x504 --shape 272x96x2804 --shape 487x1688x7536 --shape 1032x4308x328"
timeout 150 build-gpu/s52/bin/sk34 $SM --seed 523 --out $OUT/sk34.md --command "bash bench/results/2026-12-06-h100-s52/r3.sh" > $OUT/sk34.log 2>&1
echo "sk34 rc=$? $(el)"; grep -E '^- (pick|best|tuned)' $OUT/sk34.md
echo "done $(el)"
