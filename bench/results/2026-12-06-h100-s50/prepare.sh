#!/usr/bin/env bash
# On the development machine (session 50): the attention programs compiled by this commit's loom into
# build-gpu/s50/gen (carried to the device as build-gpu/s50.tar.xz), the --emit=schedule report, and
# the e2e harness for flash_attention_2_opt built here (tests/gpu/e2e/attention.sh's nvcc command).
#   flash_attention_2      examples/flash_attention_2 as committed (hand: warpspecialize pipeline(2) pingpong)
#   flash_attention_3      examples/flash_attention_3 as committed (hand-pipelined source)
#   flash_attention_2_opt  examples/flash_attention_2 with every mapping's clause replaced by `schedule(optimal)`,
#                          the default budget for all three (the D > 128 loop is now solved as sub-tiles)
set -eu
S=build-gpu/s50
H=bench/results/2026-12-06-h100-s50
L=${LOOM:-build/loom}
rm -rf $S && mkdir -p $S/gen/flash_attention_2_opt $S/bin
sed 's/warpspecialize pipeline(2) pingpong smem(227KB);/schedule(optimal) smem(227KB);/' \
  examples/flash_attention_2/flash_attention_2.loom > $S/gen/flash_attention_2_opt/flash_attention_2_opt.loom
test "$(grep -c 'schedule(optimal) smem' $S/gen/flash_attention_2_opt/flash_attention_2_opt.loom)" = 3
cp $S/gen/flash_attention_2_opt/flash_attention_2_opt.loom $H/
for e in flash_attention_2 flash_attention_3; do
  /usr/bin/time -f "$e: loom compile %e s" $L compile examples/$e/$e.loom -o $S/gen/$e
done
/usr/bin/time -f "flash_attention_2_opt: loom compile %e s" $L compile $S/gen/flash_attention_2_opt/flash_attention_2_opt.loom -o $S/gen/flash_attention_2_opt
$L compile $S/gen/flash_attention_2_opt/flash_attention_2_opt.loom --emit=schedule > $H/fa2_opt.schedule.txt 2>&1
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu \
  -I$S/gen/flash_attention_2_opt tests/gpu/attention_correctness.cu $S/gen/flash_attention_2_opt/mha.cu \
  -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/attention_e2e_fa2_opt
tar -C build-gpu -cJf build-gpu/s50.tar.xz s50
ls -la build-gpu/s50.tar.xz
