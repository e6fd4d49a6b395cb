#!/usr/bin/env bash
# Session 20, round 5: examples/gemm + 64x128 (8 stages), 64x128 multicast(2) (6, 8 stages), 64x256 multicast(2), 128x128 multicast(2) 6 stages
# every mapping timed on the sweep shapes below 0.90x cuBLAS.
set -u
S=build-gpu/s20
O=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; date -u
args=()
for sh in 600x1248x4736 487x1688x7536 274x176x6136 977x104x6336 80x3896x2192 505x2856x1048 280x1472x1472 4959x800x776 7610x992x4592 6736x5016x5456 3968x864x384 664x1872x96 1576x1392x184 4664x104x1320 77x1696x1128; do args+=(--shape $sh); done
timeout 30 $S/bin/gemm_mappings_mc --out $O/check.md --check-only --shape 300x520x200 --shape 129x257x65 --shape 600x1248x4736 > $O/check.log 2>&1; echo "check rc=$?"; tail -5 $O/check.log
timeout 400 $S/bin/gemm_mappings_mc --out $O/mappings-mc.md "${args[@]}" --command "bash build-gpu/s20/r5.sh" > $O/mappings.log 2>&1; echo "mappings rc=$?"
grep -E "^\|" $O/mappings-mc.md | cut -c1-400 | head -22; grep -E "^- " $O/mappings-mc.md | head
date -u
