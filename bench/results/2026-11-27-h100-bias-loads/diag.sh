#!/usr/bin/env bash
# Session 18 round 1: loom gemm per mapping vs gemm_bias_act per mapping on the same shapes.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18; B=/tmp/s18/bin; L=/tmp/s18/logs; mkdir -p $B $L "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
SH="8192x8192x1024,4096x4096x4096,2256x7968x552,7168x7760x328,3464x4040x1240,1880x5120x3840,408x6896x6408,5448x6448x2800"
t0=$(date +%s)
n=$(grep -o "one per mapping ([0-9]*)" $G/gen/gemm/gemm.cu | grep -o "[0-9]*")
$NVCC -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$G/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=$n bench/gemm_mappings.cu -lcuda -lcublas -o $B/gm > $L/b.log 2>&1 &
OUT="$OUT/fused" LOOM_GEN_DIR=$G/gen LOOM_BUILD_DIR=/tmp/s18/fb timeout 400 bash bench/fused.sh --shapes $SH --by-mapping \
  --only gemm_bias_act_gelu --only gemm_bias_act_identity > $L/fused.log 2>&1 &
wait
echo "builds+fused $(( $(date +%s) - t0 )) s"; tail -3 $L/b.log
shapes=(); IFS=, read -ra S <<< "$SH"; for s in "${S[@]}"; do shapes+=(--shape $s); done
timeout 200 $B/gm --out "$OUT/gemm-mappings.md" "${shapes[@]}" --command "diag.sh" > $L/gm.log 2>&1; echo "gm rc=$?"
tail -5 $L/fused.log
cp $L/fused.log $L/gm.log "$OUT"/
echo "elapsed $(( $(date +%s) - t0 )) s"
