#!/usr/bin/env bash
# Every mapping of a generated examples/gemm and examples/batched_gemm timed on its own per shape,
# beside cuBLAS and the launcher's pick (bench/gemm_mappings.cu): the cost model's error and what
# the best compiled mapping leaves to cuBLAS. Runs on the GPU machine.
#   bash bench/gemm_mappings.sh GEN OUTDIR [--sweep N] [--sweep-seed S] [--table]
# GEN holds gemm/ and/or batched_gemm/ as `loom compile X.loom -o GEN/X` writes them. Writes
# OUTDIR/mappings-<kernel>-sweep.md (and -table.md with --table) and OUTDIR/mappings-logs.txt.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
gen=$1 out=$2
shift 2
sweep=40 seed=20261125 table=0
while [ $# -gt 0 ]; do
  case $1 in
    --sweep) sweep=$2; shift 2 ;;
    --sweep-seed) seed=$2; shift 2 ;;
    --table) table=1; shift ;;
    *) echo "gemm_mappings.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$out" "$out/.bin"
logs="$out/mappings-logs.txt"
: >"$logs"
build() {  # kernel macro
  local n
  n=$(grep -o "one per mapping ([0-9]*)" "$gen/$1/$1.cu" | grep -o "[0-9]*")
  [ -n "$n" ] || n=1
  "$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I"$here/runtime" -I"$here/bench" \
    -I"$gen/$1" -D"$2" -DLOOM_MAPPINGS="$n" "$here/bench/gemm_mappings.cu" -lcuda -lcublas -o "$out/.bin/$1" \
    >"$out/.bin/$1.log" 2>&1 || { echo "gemm_mappings.sh: build of $1 failed"; tail -20 "$out/.bin/$1.log"; }
}
kernels=()
[ -f "$gen/gemm/gemm.cu" ] && { build gemm LOOM_HAVE_GEMM & kernels+=(gemm); }
[ -f "$gen/batched_gemm/batched_gemm.cu" ] && { build batched_gemm LOOM_HAVE_BATCHED_GEMM & kernels+=(batched_gemm); }
wait
rc=0
for k in "${kernels[@]}"; do
  [ -x "$out/.bin/$k" ] || { rc=1; continue; }
  "$out/.bin/$k" --out "$out/mappings-$k-sweep.md" --sweep "$sweep" --sweep-seed "$seed" \
    --command "bash bench/gemm_mappings.sh GEN OUT --sweep $sweep --sweep-seed $seed" >>"$logs" 2>&1 || rc=1
  if [ $table -eq 1 ]; then
    "$out/.bin/$k" --out "$out/mappings-$k-table.md" --command "bash bench/gemm_mappings.sh GEN OUT --table" >>"$logs" 2>&1 || rc=1
  fi
  grep -E "^- (pick|best)" "$out/mappings-$k-sweep.md"
done
exit $rc
