#!/usr/bin/env bash
# How 2026-12-04-cpu-z3-arith.md was measured (development machine, 2 cores, no GPU): a loom with
# xparams.patch applied (XSEED / XPARAMS set Z3's random seed and parameters; not committed) times
# every example graph and the flash_attention_2 example with every mapping scheduled, under Z3's
# default arithmetic solver (arith.solver=6, XPARAMS) and the one the commit sets (2).
# Usage: LOOM=/path/to/patched/loom bash measure.sh > OUT.txt
set -u
R=$(cd "$(dirname "$0")" && pwd); ROOT=$R/../../..
L=${LOOM:?the patched loom}
for solver in 6 2; do
  echo "## arith.solver=$solver"
  for g in $ROOT/examples/schedules/*.json; do
    m=hopper; [[ $g == *blackwell* ]] && m=blackwell
    for seed in 0 1 2 3 4 5; do
      out=$(XSEED=$seed XPARAMS="arith.solver=$solver" timeout 120 $L schedule $g --machine $m 2>&1)
      echo "$(basename $g) seed $seed: $(echo "$out" | grep -E '^solve:' | sed -E 's/solve: ([0-9.]+ s) total.*/\1/') total; $(echo "$out" | grep -E -o '^II = [0-9]+, length L = [0-9]+'), $(echo "$out" | grep -E -o '^warp groups: [0-9]+ \([^)]*\)'); queries for fewer: $(echo "$out" | grep -E 'at most' | sed -E 's/.*at most ([0-9]) warp groups: (sat|unsat|unknown).*\(([0-9.]+ s)\)$/\1 \2 \3;/' | tr '\n' ' ')"
    done
  done
  sed -E 's/warpspecialize pipeline\([0-9]\)( pingpong)?/schedule(optimal)/' $ROOT/examples/flash_attention_2/flash_attention_2.loom > /tmp/fa2opt.loom
  for seed in 0 1 2; do
    s=$(date +%s.%N)
    XSEED=$seed XPARAMS="arith.solver=$solver" $L compile /tmp/fa2opt.loom --emit=schedule > /tmp/fa2opt-$solver-$seed.txt 2>&1
    e=$(date +%s.%N)
    echo "flash_attention_2 (all 3 mappings schedule(optimal)) seed $seed: compile --emit=schedule $(python3 -c "print(f'{$e-$s:.2f}')") s; solves: $(grep -E -o 'solve: [0-9.]+ s' /tmp/fa2opt-$solver-$seed.txt | tr '\n' ' ')"
  done
done
for seed in 0 1 2; do
  if diff <(grep -v 'solve:' /tmp/fa2opt-6-$seed.txt) <(grep -v 'solve:' /tmp/fa2opt-2-$seed.txt) > /dev/null; then
    echo "flash_attention_2 seed $seed: the schedules and settings are identical under both solvers (only the solve lines differ)"
  else
    echo "flash_attention_2 seed $seed: the reports differ"
  fi
done
