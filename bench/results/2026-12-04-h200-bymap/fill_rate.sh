#!/usr/bin/env bash
# How fill_rate.txt was made (development machine, no GPU): generate, patch, build the estimate
# harnesses for each fill rate, score them against r1-bymap.md's measured times.
set -eu
R=$(cd "$(dirname "$0")" && pwd); ROOT=$R/../../..; W=${WORK:-/tmp/fill_rate}; mkdir -p $W && cd $W
L=${LOOM:-$ROOT/build/loom}
$L compile $ROOT/examples/gemm/gemm.loom -o gemm
for a in identity gelu; do LOOM=$L bash -c "cd $ROOT && bash tests/gpu/e2e/gemm_bias_act.sh --gen $a $W" > /dev/null; done
for d in gemm gemm_bias_act_identity gemm_bias_act_gelu; do sed -i 's|/ 48\.0|/ FILLRATE|g' $d/*.cu; done
python3 - "$ROOT" <<'PY'
import sys
s = open(sys.argv[1] + '/bench/results/2026-12-02-h200-pingpong/estimates.cu').read()
i = s.index('#if MAPPINGS > 19'); j = s.index('#endif', i) + len('#endif')
open('est.cu', 'w').write(s[:j] + ''.join(f'\n#if MAPPINGS > {k}\n    E({k})\n#endif' for k in range(20, 23)) + s[j:])
PY
F="-std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a -I$ROOT/runtime"
for fr in 48 52 56 64; do
  nvcc $F -Igemm -DGEMM -DMAPPINGS=23 -DFILLRATE=$fr.0 est.cu -o eg$fr
  for a in identity gelu; do nvcc $F -Igemm_bias_act_$a -DGBA -DMAPPINGS=13 -DFILLRATE=$fr.0 est.cu -o e$a$fr; done
done
python3 $R/fill_rate.py 48 52 56 64 > $R/fill_rate.txt
