#!/usr/bin/env bash
# Round 1 on the GPU machine: latency.cu over the small shapes the sweep loses, then ncu's kernel
# durations of cuBLAS and loom at two of them. Binary prebuilt into build-gpu/s23 (see latency.cu).
set -u
B=build-gpu/s23/latency
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
$B 153x200x136 208x200x520 451x248x224 1296x328x416 1743x264x760 3056x256x1808 5352x712x344 4704x784x848 1034x3304x168 4376x3320x1080 > $OUT/r1-latency.md 2>&1
cat $OUT/r1-latency.md
LAT_ONCE=1 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size,launch__block_size \
  --csv $B 153x200x136 > $OUT/r1-ncu-153x200x136.csv 2>&1
LAT_ONCE=1 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size,launch__block_size \
  --csv $B 1743x264x760 > $OUT/r1-ncu-1743x264x760.csv 2>&1
python3 - <<'PY'
import csv, os, statistics, collections
for f in sorted(os.listdir(os.environ['OUT'])):
    if not f.endswith('.csv'): continue
    rows = [r for r in csv.reader(open(os.path.join(os.environ['OUT'], f))) if len(r) > 10]
    if not rows: print(f, 'no rows'); continue
    h = rows[0]; ki = h.index('Kernel Name'); mi = h.index('Metric Name'); vi = h.index('Metric Value')
    d = collections.defaultdict(list)
    for r in rows[1:]:
        if r[mi] == 'gpu__time_duration.sum': d[r[ki][:60]].append(float(r[vi].replace(',', '')))
    print(f)
    for k, v in d.items(): print(f'  {k:60s} n={len(v):4d} median {statistics.median(v):10.1f} min {min(v):10.1f}')
PY
