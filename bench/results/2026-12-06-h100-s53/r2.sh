#!/usr/bin/env bash
# Session 53, one device call (carry build-gpu/s53b.tar.xz from prepare2.sh): the end-to-end correctness of the kernels
# whose direct stores the epilogue change touches (each harness: fresh inputs, poisoned outputs, fp64/fp32 reference;
# every shape through the pick and every mapping by index), then memcheck and racecheck on every mapping by index at
# 129x257x65 (edge tiles both ways) and on the unaligned gemm (async-copy variants, direct stores only).
set -u
mkdir -p $OUT
tar xJf build-gpu/s53b.tar.xz
B=build-gpu/s53b/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
run() {  # NAME CMD...: the command's tail and status
  local n=$1; shift
  timeout 150 "$@" > $OUT/$n.log 2>&1; echo "$n rc=$? $(el)"; grep -E "FAIL|ERROR SUMMARY: [1-9]" $OUT/$n.log | head -5
}
run gemm $B/gemm_e2e --skip-large
run unaligned $B/gemm_unaligned
run add_gemm $B/add_gemm_e2e
run gba $B/gemm_bias_act_gelu
run relu $B/relu_gemm_e2e
for tool in memcheck racecheck; do
  run san-$tool-add $SAN --tool $tool --error-exitcode 99 --print-limit 10 $B/add_gemm_e2e --by-index 129x257x65
  run san-$tool-gba $SAN --tool $tool --error-exitcode 99 --print-limit 10 $B/gemm_bias_act_gelu --by-index 129x257x65
  run san-$tool-unal $SAN --tool $tool --error-exitcode 99 --print-limit 10 $B/gemm_unaligned --only "333x1001x700 tight"
  for m in 15 16 17 27; do
    run san-$tool-m$m $SAN --tool $tool --error-exitcode 99 --print-limit 10 $B/gemm_e2e --only 1000x1000x1000 --mapping $m --runs 1
  done
done
cd $OUT && tar cJf logs.tar.xz *.log && rm -f *.log
echo "done $(el)"
