#!/usr/bin/env bash
# Round 5 on the GPU machine: the SASS of the probed mapping-8 kernel (instructions up to its first
# TMA load), and ncu's per-instruction warp-stall samples (SourceCounters) for mapping 8 at
# 5352x712x344 and mapping 2 at 1743x264x760.
set -u
B=build-gpu/s23/latency_E
CU=/usr/local/cuda/bin
$CU/cuobjdump -sass $B > /tmp/r5-sass-all.txt 2>&1 || echo "cuobjdump failed"
python3 - <<'PY'
import os, re
t = open('/tmp/r5-sass-all.txt').read()
funcs = re.split(r'\n\s*Function : ', t)
for f in funcs[1:]:
    name = f.split('\n', 1)[0]
    if 'gemm_kernel' not in name or 'async_copy' in name: continue
    m = re.search(r'_GLOBAL__N_1(\d)mapping(\d+)', name)  # <length>mapping<k>: the length fixes k's digits
    m = m and (lambda L, rest: (rest[:L - 7]))(int(m.group(1)), m.group(2))
    ins = re.findall(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);', f)
    first = next((i for i, (_, x) in enumerate(ins) if 'UTMALDG' in x), None)
    print(f'mapping{m if m else "?"}: {len(ins)} instructions, first UTMALDG at instruction {first}')
    if m in ('8', '2'):
        open(os.path.join(os.environ['OUT'], f'r5-sass-m{m}.txt'), 'w').write(f)
PY
for job in "8 5352x712x344" "2 1743x264x760"; do
  set -- $job
  LAT_ONCE=1 $CU/ncu --section SourceCounters --section WarpStateStats --kernel-name-base demangled -k regex:"mapping$1::gemm_kernel" -c 1 \
    -o $OUT/r5-m$1 -f $B $2 > $OUT/r5-ncu-m$1.log 2>&1
  $CU/ncu -i $OUT/r5-m$1.ncu-rep --page source --csv --print-source sass > $OUT/r5-source-m$1.csv 2>&1 || \
    $CU/ncu -i $OUT/r5-m$1.ncu-rep --page source --csv > $OUT/r5-source-m$1.csv 2>&1
  $CU/ncu -i $OUT/r5-m$1.ncu-rep --page details --csv > $OUT/r5-details-m$1.csv 2>&1
  head -c 600 $OUT/r5-source-m$1.csv; echo; wc -l $OUT/r5-source-m$1.csv
done
