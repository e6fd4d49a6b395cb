#!/usr/bin/env bash
# Session 53 (carry build-gpu/s53.tar.xz, build-gpu/s53c.tar.xz): the direct store alone, old (gm30old: element by
# element) against new (gm30: movmatrix + quad shuffles, 16-byte stores), same 30 mappings otherwise, every mapping timed
# at five shapes, in the order old new new old; then the names of cuBLAS's kernels at the four small long-K shapes.
set -u
mkdir -p $OUT
tar xJf build-gpu/s53.tar.xz; tar xJf build-gpu/s53c.tar.xz
N=build-gpu/s53/bin/gm30; O=build-gpu/s53/bin/gm30old
SH="--shape 2232x3288x3296 --shape 4096x4096x4096 --shape 1000x1000x1000 --shape 408x6896x6408 --shape 1264x2688x7968"
i=0; for b in O N N O; do i=$((i+1)); B=${!b}; timeout 110 $B $SH --seed 5303 --out $OUT/t$i-$b.md > /dev/null 2>&1; echo "$b rc=$?"; done
for f in $OUT/t*.md; do echo $f; awk -F'|' '/^\| [0-9]/{print $2, "cublas", $3, "m10", $14, "m20", $24, "m27", $31, "m28", $32}' $f; done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for s in 600x1248x4736 505x2856x1048 977x104x6336 195x1680x1976; do
  timeout 60 $NCU --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y \
    $N --check-only --maps 0 --shape $s --out /tmp/x.md 2>&1 | grep -vE "^gemm_mappings|^==PROF==|^- |^#|^$" | grep -E "^  [a-zA-Z_]|duration|grid_size|cluster_dim" | head -24
done
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$CO -sass $O > /tmp/old.sass; $CO -sass $N > /tmp/new.sass
python3 bench/results/2026-12-06-h100-s53/sass_count.py /tmp/old.sass /tmp/new.sass | tee $OUT/sass_count.txt
