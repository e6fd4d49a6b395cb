#!/usr/bin/env bash
# Session 16 round 3b: gemm_bench (vs cuBLAS) with the binaries a.sh built: gen-new and gen-fix on
# the sweep seeds 20261125 and 20261127, and gen-new on the fixed table.
set -u
cd "$(dirname "$0")/../.."
B=/tmp/s16c/bin; mkdir -p "$OUT"
t0=$(date +%s)
for run in "new 20261127" "fix 20261127" "new 20261125" "fix 20261125"; do
  set -- $run
  timeout 130 $B/bench_$1 --out "$OUT/sweep-$1-$2.md" --sweep 40 --sweep-seed $2 --command "bash build-gpu/s16c/b.sh (gemm_bench --sweep 40 --sweep-seed $2, gen-$1)" > /tmp/s16c/logs/bench_$1_$2.log 2>&1
  echo "sweep gen-$1 seed $2 rc=$? $(( $(date +%s) - t0 )) s"; grep -E "geomean|minimum" "$OUT/sweep-$1-$2.md"
done
timeout 120 $B/bench_new --out "$OUT/table-new.md" --command "bash build-gpu/s16c/b.sh (gemm_bench, gen-new)" > /tmp/s16c/logs/bench_table.log 2>&1
echo "table gen-new rc=$?"; grep -E "geomean|minimum" "$OUT/table-new.md"
