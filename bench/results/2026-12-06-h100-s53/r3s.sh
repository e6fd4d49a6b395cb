#!/usr/bin/env bash
# Session 53: r3.sh cut to its first half for the little device time left: old (gm30old) against new (gm30), same
# tree, every mapping at three shapes, old new new old; then the SASS counts. Carry s53.tar.xz and s53c.tar.xz.
set -u
mkdir -p $OUT
tar xJf build-gpu/s53.tar.xz; tar xJf build-gpu/s53c.tar.xz
N=build-gpu/s53/bin/gm30; O=build-gpu/s53/bin/gm30old
SH="--shape 2232x3288x3296 --shape 1000x1000x1000 --shape 408x6896x6408"
i=0; for b in O N N O; do i=$((i+1)); B=${!b}; timeout 50 $B $SH --seed 5303 --out $OUT/t$i-$b.md > /dev/null 2>&1; echo "$b rc=$?"; done
for f in $OUT/t*.md; do echo $f; awk -F'|' '/^\| [0-9]/{print $2, "cublas", $3, "m10", $14, "m20", $24, "m27", $31, "m28", $32}' $f; done
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$CO -sass $O > /tmp/old.sass; $CO -sass $N > /tmp/new.sass
python3 bench/results/2026-12-06-h100-s53/sass_count.py /tmp/old.sass /tmp/new.sass | tee $OUT/sass_count.txt
