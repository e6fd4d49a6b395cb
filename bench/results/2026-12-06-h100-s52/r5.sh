#!/usr/bin/env bash
# Session 52 (prepared, not run; carry build-gpu/s52b.tar.xz from prepare2.sh): why sk34 (r3) crashed with SIGSEGV
# before printing its first row: each new mapping alone through --maps, then gdb's backtrace if the machine has gdb;
# then all 34 mappings on r3's small long-K shapes.
set -u
mkdir -p $OUT
tar xJf build-gpu/s52b.tar.xz build-gpu/s52/bin/sk34  # carry build-gpu/s52b.tar.xz (prepare2.sh)
B=build-gpu/s52/bin/sk34
for m in 0 28 29 30 31 32 33; do
  timeout 20 stdbuf -oL -eL $B --maps $m --shape 600x1248x4736 --check-only --out /tmp/m$m.md > /tmp/m$m.log 2>&1
  echo "maps $m rc=$?"; tail -n 2 /tmp/m$m.log | cut -c1-300
done
command -v gdb && timeout 60 gdb -batch -ex run -ex bt --args $B --maps 28 --shape 600x1248x4736 --check-only --out /tmp/g.md 2>&1 | tail -25
# then, if the new mappings run one by one, all 34 on r3's small long-K shapes (as r3 meant to)
SM="--shape 600x1248x4736 --shape 505x2856x1048 --shape 977x104x6336 --shape 195x1680x1976 --shape 288x1976x1192 --shape 399x176x3920 --shape 112x3712x3752 --shape 104x920x4697 --shape 472x264x6973 --shape 1264x2688x7968 --shape 656x5248x7728 --shape 171x7280x200 --shape 165x5240x504 --shape 272x96x2804 --shape 487x1688x7536 --shape 1032x4308x328"
timeout 200 stdbuf -oL -eL $B $SM --seed 523 --out $OUT/sk34.md --command "bash bench/results/2026-12-06-h100-s52/r5.sh" > $OUT/sk34.log 2>&1
echo "sk34 rc=$?"; grep -E '^- (pick|best|tuned)' $OUT/sk34.md
