#!/usr/bin/env bash
# Session 52 (prepared, not run; carry build-gpu/s52b.tar.xz from prepare2.sh, rebuilt after the harness fix): the 34
# mappings of sk34 (examples/gemm + six split-K candidates for small long-K calls, mappings 28-33) on r3's small
# long-K shapes, as r3 meant to (r3's sk34 crashed: the harness's table missed mapping 32, fixed in bench/gemm_mappings.cu).
set -u
mkdir -p $OUT
tar xJf build-gpu/s52b.tar.xz build-gpu/s52/bin/sk34
B=build-gpu/s52/bin/sk34
SM="--shape 600x1248x4736 --shape 505x2856x1048 --shape 977x104x6336 --shape 195x1680x1976 --shape 288x1976x1192 --shape 399x176x3920 --shape 112x3712x3752 --shape 104x920x4697 --shape 472x264x6973 --shape 1264x2688x7968 --shape 656x5248x7728 --shape 171x7280x200 --shape 165x5240x504 --shape 272x96x2804 --shape 487x1688x7536 --shape 1032x4308x328"
timeout 240 $B $SM --seed 523 --out $OUT/sk34.md --command "bash bench/results/2026-12-06-h100-s52/r5.sh" > $OUT/sk34.log 2>&1
echo "sk34 rc=$?"; grep -E '^- (pick|best|tuned)' $OUT/sk34.md
