#!/usr/bin/env bash
# The whole experiment on a machine without a GPU (nvcc, cuobjdump): run from the repo root on a loom built at
# 24a76a3 with bench/results/2026-12-05-h200-sched/bypass-refusal.patch applied (LOOM_FORCE_FA3PP=1 lets the
# compiler emit flash_attention_3 with pingpong, which it refuses otherwise). Revert the patch afterwards.
set -eu
W=${W:-/tmp/fx}; H=bench/results/2026-12-05-cpu-peel; L=${LOOM:-build/loom}
export W
mkdir -p $W
# examples/flash_attention_3 with `pingpong` on its mappings
sed 's/warpspecialize pipeline(2) smem(227KB);/warpspecialize pipeline(2) pingpong smem(227KB);/' \
  examples/flash_attention_3/flash_attention_3.loom > $W/flash_attention_3_pp.loom
LOOM_FORCE_FA3PP=1 $L compile $W/flash_attention_3_pp.loom -o $W/fa3pp
$L compile examples/flash_attention_2/flash_attention_2.loom -o $W/fa2
for n in fa3pp fa2; do
  mkdir -p $W/${n}_peel && cp $W/$n/mha.h $W/${n}_peel/ && python3 $H/peel.py $W/$n/mha.cu $W/${n}_peel/mha.cu
  bash $H/scan.sh $W/$n $n; bash $H/scan.sh $W/${n}_peel ${n}_peel
done
bash $H/variant.sh fa2_peel_nofo -e '/deferred into this turn/,/wgmma_commit/{/wgmma_fence_operand(v_\(A_1\|C\))/d}'
bash $H/variant.sh fa2_peel_w0 -e 's/loom::rt::wgmma_wait<1>();  \/\/ qk_thread/loom::rt::wgmma_wait<0>();  \/\/ qk_thread/'
bash $H/variant.sh v_norescale -e 's/v_C\[r\] = (v_C\[r\] \* v_a_2\[((r) >> 1) \& 1\]);/(void)0;/'
bash $H/variant.sh v_nopack -e 's/v_A_1\[i\] = loom::rt::pack_pair(v_P\[2 \* i\], v_P\[2 \* i + 1\])/v_A_1[i] = 0u/'
bash $H/variant.sh v_fence_after_pack -e '/v_A_1\[i\] = loom::rt::pack_pair/a\              loom::rt::wgmma_fence_operand(v_A_1);'
for n in fa2 fa2_peel v_nopack; do echo "$n: MUFU.EX2 $(grep -c 'MUFU.EX2' $W/$n.sass), HGMMA $(grep -c HGMMA $W/$n.sass), F2FP $(grep -c F2FP $W/$n.sass)"; done
