#!/usr/bin/env bash
# Session 51, device call 3 (carry build-gpu/s51c.tar.xz from prepare3.sh, build-gpu/s51.tar.xz from prepare1.sh,
# build-gpu/s50g.tar.xz from session 50's prepare8.sh): staged epilogues in parts through two buffers taken in turn.
#  1. correctness: gemm + batched_gemm (every shape, every mapping by index), gemm_bias_act GELU, add_gemm, relu_gemm;
#     compute-sanitizer memcheck / racecheck / synccheck on the kernels that stage in parts (gemm's mappings 10, 24,
#     25 forced at 2960x1464x3064: 144 tiles, blocks that run two) and on every mapping by index at 2200x2200x64 for
#     gemm_bias_act, add_gemm and relu_gemm (162 tiles of 128 x 256);
#  2. bench/gemm_mappings.cu, HEAD's code (s51's gm28) then this tree's (s51c's), on 10 shapes;
#  3. bench/fused_bench.py gemm_bias_act GELU, HEAD's library (s50g) then this tree's, --by-mapping, the 5 listed shapes
#     and the same 10.
set -u
mkdir -p $OUT
R=$(mktemp -d)
for t in s51c s51 s50g; do tar xJf build-gpu/$t.tar.xz; done
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
S=build-gpu/s51c/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $S/gemm_e2e > $R/gemm_e2e.log 2>&1; echo "gemm_e2e rc=$? $(el)"; tail -1 $R/gemm_e2e.log
timeout 60 $S/gba_e2e > $R/gba_e2e.log 2>&1; echo "gba_e2e rc=$? $(el)"; tail -1 $R/gba_e2e.log
timeout 60 $S/add_gemm_e2e > $R/add_gemm_e2e.log 2>&1; echo "add_gemm_e2e rc=$? $(el)"; tail -1 $R/add_gemm_e2e.log
timeout 60 $S/relu_gemm_e2e > $R/relu_gemm_e2e.log 2>&1; echo "relu_gemm_e2e rc=$? $(el)"; tail -1 $R/relu_gemm_e2e.log
for tool in memcheck racecheck synccheck; do
  for m in 10 24 25; do
    timeout 120 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $S/gemm_e2e --only 2960x1464x3064 --mapping $m --runs 1 \
      > $R/san-gemm-$tool-m$m.log 2>&1; echo "$tool gemm m$m rc=$? $(el)"
  done
  for b in gba add_gemm relu_gemm; do
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $S/${b}_e2e --by-index 2200x2200x64 > $R/san-$b-$tool.log 2>&1
    echo "$tool $b by-index rc=$? $(el)"
  done
done
SH=""; for s in 2232x3288x3296 3464x4040x1240 1264x2688x7968 656x5248x7728 6736x5016x5456 6243x3464x392 8192x8192x1024 \
  5448x6448x2800 1880x5120x3840 5968x2448x6416; do SH="$SH --shape $s"; done
C="bash bench/results/2026-12-06-h100-s51/r3.sh"
timeout 150 build-gpu/s51/bin/gm28 --out $OUT/gm-old.md $SH --command "$C" > $R/gm-old.log 2>&1; echo "gm old rc=$? $(el)"
timeout 150 $S/gm28 --out $OUT/gm-new.md $SH --command "$C" > $R/gm-new.log 2>&1; echo "gm new rc=$? $(el)"
grep -E '^- (pick|best)' $OUT/gm-old.md $OUT/gm-new.md
SHF=2232x3288x3296,3464x4040x1240,1264x2688x7968,656x5248x7728,6736x5016x5456,6243x3464x392,5448x6448x2800,1880x5120x3840,5968x2448x6416,2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,8192x8192x1024
timeout 150 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s50g/lib20/lib/libgemm_bias_act_gelu.so --shapes $SHF --by-mapping \
  --out $OUT/gba-old.md --command "$C" > $R/gba-old.log 2>&1; echo "gba old rc=$? $(el)"
timeout 150 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s51c/gba/lib/libgemm_bias_act_gelu.so --shapes $SHF --by-mapping \
  --out $OUT/gba-new.md --command "$C" > $R/gba-new.log 2>&1; echo "gba new rc=$? $(el)"
grep -E "^- gemm_bias_act" $OUT/gba-old.md $OUT/gba-new.md
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $R/san-*.log | sort | uniq -c
tar czf $OUT/r3-logs.tgz -C $R .
echo "done $(el)"
