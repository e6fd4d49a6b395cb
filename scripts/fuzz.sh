#!/usr/bin/env bash
# Runs the libFuzzer target over parse + check + fmt (docs/fuzzing.md). `make fuzz` builds the
# target and calls this script; it can also be run by hand:
#
#   bash scripts/fuzz.sh build-fuzz/loom_fuzz 600
#
# - The corpus lives in fuzz-corpus/ (git-ignored) and persists between runs. Every run first adds
#   the seeds: examples/*/*.loom, tests/errors/*.loom and tests/fuzz/regressions/*.
# - The dictionary is tests/fuzz/loom.dict (keywords, clause names, punctuation).
# - Findings (crash-*, timeout-*, leak-*, oom-*) are written to fuzz-crashes/; reproduce one with
#   `build-fuzz/loom_fuzz fuzz-crashes/crash-...`, minimize it with
#   `build-fuzz/loom_fuzz -minimize_crash=1 -runs=100000 fuzz-crashes/crash-...`, and keep it as
#   tests/fuzz/regressions/<name>.loom (run by tests/unit/fuzz_regression_test.cpp).
# - The full libFuzzer log is written next to the binary (<bin dir>/fuzz.log).
#
# FUZZ_TARGET=tx: the `.tx` target (build-fuzz/loom_fuzz_tx, tests/fuzz/fuzz_tx.cpp) instead: corpus
# fuzz-corpus-tx/, seeds examples/tx/*.tx, tests/errors/tx/*.tx and tests/fuzz/regressions/tx/*,
# dictionary tests/fuzz/tx.dict, log <bin dir>/fuzz-tx.log; regressions go to tests/fuzz/regressions/tx/
# (run by tests/unit/tx_fuzz_regression_test.cpp).
#
# Environment: FUZZ_JOBS=N runs N workers in libFuzzer's fork mode and keeps going after a finding
# (-ignore_crashes/-ignore_timeouts/-ignore_ooms) so one run can collect several; the default (0)
# is a single process that stops at the first finding. FUZZ_ARGS adds raw libFuzzer flags.
#
# Exit status: 0 when the run ended with no finding, 1 when it found something, 2 on usage errors.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 FUZZ_BINARY [SECONDS]" >&2
  exit 2
fi
BIN=$1
SECONDS_TOTAL=${2:-600}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CRASHES=$ROOT/fuzz-crashes
shopt -s nullglob  # (until the seeds are copied)
if [ "${FUZZ_TARGET:-loom}" = tx ]; then
  CORPUS=$ROOT/fuzz-corpus-tx
  DICT=$ROOT/tests/fuzz/tx.dict
  LOG=$(cd "$(dirname "$BIN")" && pwd)/fuzz-tx.log
  SEEDS=("$ROOT"/examples/tx/*.tx "$ROOT"/tests/errors/tx/*.tx "$ROOT"/tests/fuzz/regressions/tx/*)
else
  CORPUS=$ROOT/fuzz-corpus
  DICT=$ROOT/tests/fuzz/loom.dict
  LOG=$(cd "$(dirname "$BIN")" && pwd)/fuzz.log
  SEEDS=("$ROOT"/examples/*/*.loom "$ROOT"/tests/errors/*.loom "$ROOT"/tests/fuzz/regressions/*)
fi
JOBS=${FUZZ_JOBS:-0}

if [ ! -x "$BIN" ]; then
  echo "fuzz: error: '$BIN' is not an executable (build it with \`make fuzz\`)" >&2
  exit 2
fi
if ! [[ "$SECONDS_TOTAL" =~ ^[0-9]+$ ]] || [ "$SECONDS_TOTAL" -le 0 ]; then
  echo "fuzz: error: SECONDS must be a positive integer, got '$SECONDS_TOTAL'" >&2
  exit 2
fi
if [ ! -f "$DICT" ]; then
  echo "fuzz: error: dictionary $DICT is missing" >&2
  exit 2
fi

mkdir -p "$CORPUS" "$CRASHES"

# Seed the corpus (files are named by content hash, so re-seeding adds no duplicates).
seeds=0
for f in "${SEEDS[@]}"; do
  [ -f "$f" ] || continue
  h=$(sha1sum "$f" | cut -d' ' -f1)
  if [ ! -e "$CORPUS/$h" ]; then cp "$f" "$CORPUS/$h"; fi
  seeds=$((seeds + 1))
done
shopt -u nullglob
corpus_before=$(find "$CORPUS" -maxdepth 1 -type f | wc -l)
findings_list_before=$(find "$CRASHES" -maxdepth 1 -type f -printf '%f\n' | sort)
findings_before=$(find "$CRASHES" -maxdepth 1 -type f | wc -l)

args=(
  -max_total_time="$SECONDS_TOTAL"
  -max_len=8192
  -timeout=10
  -rss_limit_mb=2048
  -dict="$DICT"
  -artifact_prefix="$CRASHES/"
  -print_final_stats=1
)
if [ "$JOBS" -gt 0 ]; then
  args+=(-fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
# shellcheck disable=SC2206
args+=(${FUZZ_ARGS:-})

echo "fuzz: $BIN for ${SECONDS_TOTAL}s; corpus $CORPUS ($corpus_before files, $seeds seeds); findings -> $CRASHES/; log $LOG"
start=$(date +%s)
"$BIN" "${args[@]}" "$CORPUS" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
end=$(date +%s)

# Summary from the log: total executions and rate (final stats; in fork mode the last status line).
execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$LOG" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$LOG" | tail -1)
if [ -z "$execs" ]; then
  execs=$(grep -oE '^#[0-9]+' "$LOG" | tail -1 | tr -d '#')
fi
last=$(grep -E '^#[0-9]+' "$LOG" | tail -1)
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")
duration=$((end - start))
if [ -z "$rate" ] && [ -n "$execs" ] && [ "$duration" -gt 0 ]; then rate=$((execs / duration)); fi
corpus_after=$(find "$CORPUS" -maxdepth 1 -type f | wc -l)
findings_after=$(find "$CRASHES" -maxdepth 1 -type f | wc -l)
new_findings=$((findings_after - findings_before))

echo
echo "==================== fuzz summary ===================="
echo "binary:        $BIN"
echo "duration:      ${duration}s (requested ${SECONDS_TOTAL}s)"
echo "executions:    ${execs:-unknown}"
echo "exec/s:        ${rate:-unknown}"
echo "coverage:      cov ${cov:-?} edges, ft ${ft:-?} features"
echo "corpus:        ${corp:-?} in use by libFuzzer (units/size); $corpus_after files (was $corpus_before) in $CORPUS"
echo "findings:      $new_findings new in $CRASHES/ (libFuzzer exit status $rc)"
if [ "$new_findings" -gt 0 ]; then
  comm -13 <(echo "$findings_list_before") <(find "$CRASHES" -maxdepth 1 -type f -printf '%f\n' | sort) |
    sed 's/^/  /' | head -20
fi
echo "======================================================="

if [ "$rc" -ne 0 ] || [ "$new_findings" -gt 0 ]; then
  echo "fuzz: FOUND A PROBLEM: reproduce with '$BIN $CRASHES/<file>'; see docs/fuzzing.md" >&2
  exit 1
fi
echo "fuzz: no finding"
exit 0
