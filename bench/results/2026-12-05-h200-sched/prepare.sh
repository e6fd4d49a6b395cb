#!/usr/bin/env bash
# On the development machine (session 39): the programs of this round compiled by loom into
# build-gpu/s39/gen (carried to the device), with loom's compile time and --emit=schedule of each.
#   flash_attention_2      examples/flash_attention_2 as committed (hand: warpspecialize pipeline(2) pingpong)
#   flash_attention_3      examples/flash_attention_3 as committed (hand-pipelined source)
#   flash_attention_2_opt  examples/flash_attention_2 with each mapping's `warpspecialize pipeline(2) pingpong`
#                          replaced by `schedule(optimal)`, the D > 128 one by `schedule(optimal, budget=80)`
#   gemm_reduce            examples/gemm_reduce as committed (its third mapping says schedule(optimal))
set -eu
S=build-gpu/s39/gen
H=bench/results/2026-12-05-h200-sched
L=${LOOM:-build/loom}
mkdir -p $S/flash_attention_2_opt
python3 - examples/flash_attention_2/flash_attention_2.loom $S/flash_attention_2_opt/flash_attention_2_opt.loom <<'PY'
import sys
s = open(sys.argv[1]).read()
hand = "warpspecialize pipeline(2) pingpong smem(227KB);"
assert s.count(hand) == 3, s.count(hand)
head, _, tail = s.rpartition(hand)  # the last mapping is when(D > 128)
s = head.replace(hand, "schedule(optimal) smem(227KB);") + "schedule(optimal, budget=80) smem(227KB);" + tail
open(sys.argv[2], "w").write(s)
PY
cp $S/flash_attention_2_opt/flash_attention_2_opt.loom $H/
for e in flash_attention_2 flash_attention_3 gemm_reduce; do
  /usr/bin/time -f "$e: loom compile %e s" $L compile examples/$e/$e.loom -o $S/$e
done
/usr/bin/time -f "flash_attention_2_opt: loom compile %e s" $L compile $S/flash_attention_2_opt/flash_attention_2_opt.loom -o $S/flash_attention_2_opt
$L compile $S/flash_attention_2_opt/flash_attention_2_opt.loom --emit=schedule > $H/fa2_opt.schedule.txt 2>&1
$L compile examples/gemm_reduce/gemm_reduce.loom --emit=schedule > $H/gemm_reduce.schedule.txt 2>&1
