#!/usr/bin/env bash
# Device call 4 (session 39): the A fragments of a wgmma that reads them from registers fenced after
# the wait that completes its group (src/codegen/events.cpp, fence_a_fragments); build-gpu/s39/gen4 =
# prepare.sh's programs regenerated with it, and flash_attention_3_pp (pingpong forced, as in r3).
# fa3_pp correctness (twice), flash_attention_2 correctness + sanitizers (D 64 128 256), ptxas
# warnings of fa3_pp, then the attention bench with the four kernels.
set -u
cd "$(dirname "$0")/../../.."
S=build-gpu/s39
mkdir -p "$OUT" $S/work4
for i in 1 2; do
  timeout 150 bash tests/gpu/e2e/attention.sh $S/gen4/flash_attention_3_pp $S/work4 --d "64 128" > $OUT/r4-attention-fa3_pp-$i.log 2>&1
  echo "fa3_pp e2e run $i rc=$?"; grep -E "attention_correctness: (PASS|FAIL) \(" $OUT/r4-attention-fa3_pp-$i.log | head -3
  grep -E "\| FAIL" $OUT/r4-attention-fa3_pp-$i.log | head -4
done
timeout 200 bash tests/gpu/e2e/attention.sh $S/gen4/flash_attention_2 $S/work4 --d "64 128 256" > $OUT/r4-attention-fa2.log 2>&1
echo "fa2 e2e rc=$?"; grep -E "attention_correctness: (PASS|FAIL) \(|SUMMARY" $OUT/r4-attention-fa2.log | sort | uniq -c
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I$S/gen4/flash_attention_3_pp -c $S/gen4/flash_attention_3_pp/mha.cu -o $S/work4/fa3pp.o -Xptxas -v > $OUT/r4-fa3pp-ptxas.txt 2>&1
grep -ci "C7512\|serializ" $OUT/r4-fa3pp-ptxas.txt; grep -i "C7512\|serializ" $OUT/r4-fa3pp-ptxas.txt | head -3
export LOOM_GEN_DIR=$S/gen4 LOOM_BUILD_DIR=$S
OUT=$OUT/a timeout 300 bash bench/attention.sh --no-causal --seed 20261207; echo "attention bench rc=$?"
mv $OUT/a/attention.md $OUT/r4-attention.md; mv $OUT/a/attention-compile.txt $OUT/r4-attention-compile.txt; rmdir $OUT/a
