#!/usr/bin/env bash
# Session 16 round 4a: the per-mapping ABI (loom_<entry>_mapping/_pick/_mappings) and the fused
# examples' new candidates. Correctness: gemm_correctness (every mapping by index, pick, error paths),
# e2e add_gemm and gemm_bias_act (4 activations, sanitizers). Run from the repository root.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s16d; B=/tmp/s16d/bin; L=/tmp/s16d/logs; mkdir -p $B $L "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
F=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu)
t0=$(date +%s)
"$NVCC" "${F[@]}" -I$G/gen-new/gemm -I$G/gen-new/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $G/gen-new/gemm/gemm.cu $G/gen-new/batched_gemm/batched_gemm.cu -lcuda -o $B/corr > $L/build_corr.log 2>&1 || { echo "BUILD FAIL corr"; tail -20 $L/build_corr.log; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 150 $B/corr --runs 1 --seed 20261128 > $L/corr.log 2>&1; echo "gemm_correctness rc=$? ok=$(grep -cE '\| ok ' $L/corr.log) FAIL=$(grep -cE '\| FAIL' $L/corr.log)"
grep -E " m[0-9]|pick|mapping |FAIL" $L/corr.log | head -60
(LOOM_GEN_DIR=$G/gen-new timeout 250 bash tests/gpu/e2e/add_gemm.sh /tmp/s16d/w-add > $L/e2e_add.log 2>&1; echo "e2e add_gemm rc=$?") &
(LOOM_GEN_DIR=$G/gen-new timeout 280 bash tests/gpu/e2e/gemm_bias_act.sh /tmp/s16d/w-bias > $L/e2e_bias.log 2>&1; echo "e2e gemm_bias_act rc=$?") &
wait
tail -15 $L/e2e_add.log; tail -25 $L/e2e_bias.log
echo "elapsed $(( $(date +%s) - t0 )) s"
for f in $L/*.log; do echo "#### $f"; head -c 20000 $f; done > "$OUT"/logs-a.txt
