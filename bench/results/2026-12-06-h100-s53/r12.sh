#!/usr/bin/env bash
# Session 53: r1.sh and r2.sh in one device call (machines were scarce), most needed first, each step skipped when
# it would start past its deadline so the call ends inside 10 minutes. Carry build-gpu/s53.tar.xz, s51e.tar.xz,
# s52b.tar.xz (r1) and s53b.tar.xz (r2).
set -u
mkdir -p $OUT
for t in s53 s51e s52b s53b; do tar xJf build-gpu/$t.tar.xz; done
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
before() { [ $(( $(date +%s) - start )) -lt $1 ] || { echo "skipped past $1 s: ${*:2}"; return 1; }; }
N=build-gpu/s53/bin/gm30; O=build-gpu/s51e/bin/gm29; B=build-gpu/s53b/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
run() {  # NAME TIMEOUT CMD...: status and failure lines
  local n=$1 t=$2; shift 2
  timeout $t "$@" > $OUT/$n.log 2>&1; echo "$n rc=$? $(el)"; grep -E "FAIL|ERROR SUMMARY: [1-9]|error" $OUT/$n.log | head -4
}
# r1 step 1: every mapping of gm30 checked against cuBLAS (mapping 28 stores directly always; 29 has an odd row group)
run check 150 $N --check-only --shape 129x257x65 --shape 1000x1000x1000 --shape 77x1003x300 --shape 2232x3288x3296 \
  --shape 505x2855x1048 --out $OUT/check.md
awk -F'|' '/^\| [0-9]/{print $2, $(NF-1)}' $OUT/check.md
for tool in memcheck racecheck; do for s in 1000x1000x1000 129x250x65; do
  before 200 && run san-$tool-$s 90 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $N --check-only --maps 28,29 --shape $s --out /tmp/x.md
done; done
# r2: the end-to-end harnesses of the kernels the epilogue change touches
before 260 && run gemm 120 $B/gemm_e2e --skip-large
before 300 && run unaligned 60 $B/gemm_unaligned
before 330 && run add_gemm 60 $B/add_gemm_e2e
before 360 && run gba 60 $B/gemm_bias_act_gelu
before 380 && run relu 60 $B/relu_gemm_e2e
before 400 && run san-mem-gba 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 10 $B/gemm_bias_act_gelu --by-index 129x257x65
before 420 && run san-mem-unal 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 10 $B/gemm_unaligned --only "333x1001x700 tight"
# r1 step 2: old (gm29) against new (gm30), mappings 10 and 28, both orders
SH="--shape 2232x3288x3296 --shape 4096x4096x4096 --shape 1000x1000x1000"
for b in O N N O; do
  before 500 && { B2=${!b}; timeout 40 $B2 --maps 10,28 $SH --seed 5301 --out $OUT/t-$b.md > /dev/null 2>&1; echo "time $b rc=$? $(el)"; \
    awk -F'|' '/^\| [0-9]/{print $2, "cublas", $3, "m10", $14, "m28", $32}' $OUT/t-$b.md; }
done
cd $OUT && tar cJf logs.tar.xz *.log && rm -f *.log && cd - > /dev/null
echo "done $(el)"
