#!/usr/bin/env bash
# On the development machine, from the repo root: the kernels r1.sh needs, in build-gpu/s42/gen (carry build-gpu/s42),
# all from the committed compiler:
#   flash_attention_2      examples/flash_attention_2 (plain `pingpong`: the guarded deferred mma)
#   flash_attention_2_db   the same with `pingpong(double_buffer)` (docs/codegen.md, "Double-buffered turns")
#   flash_attention_3      examples/flash_attention_3 (pipelined by hand, no turns)
#   flash_attention_3_db   the same with `pingpong(double_buffer)` (plain `pingpong` is refused there)
# and prints each one's ptxas wgmma advisories and scripts/sass_hazards.py's count (scan.sh).
set -eu
S=build-gpu/s42/gen; L=${LOOM:-build/loom}; W=${W:-/tmp/s42-dbuf}
mkdir -p $S $W
sed 's/warpspecialize pipeline(2) pingpong /warpspecialize pipeline(2) pingpong(double_buffer) /' \
  examples/flash_attention_2/flash_attention_2.loom > $W/fa2_db.loom
sed 's/warpspecialize pipeline(2) smem(227KB);/warpspecialize pipeline(2) pingpong(double_buffer) smem(227KB);/' \
  examples/flash_attention_3/flash_attention_3.loom > $W/fa3_db.loom
$L compile examples/flash_attention_2/flash_attention_2.loom -o $S/flash_attention_2
$L compile $W/fa2_db.loom -o $S/flash_attention_2_db
$L compile examples/flash_attention_3/flash_attention_3.loom -o $S/flash_attention_3
$L compile $W/fa3_db.loom -o $S/flash_attention_3_db
for d in flash_attention_2 flash_attention_2_db flash_attention_3 flash_attention_3_db; do
  W=$W bash bench/results/2026-12-05-cpu-peel/scan.sh $S/$d $d
done
