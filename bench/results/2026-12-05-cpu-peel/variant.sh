#!/usr/bin/env bash
# variant.sh NAME SED-ARGS...: $W/fa2_peel/mha.cu edited by sed into $W/NAME/mha.cu, then scan.sh. Run from the repo root.
set -u
n=$1; shift; W=${W:-/tmp/fx}; H=bench/results/2026-12-05-cpu-peel
mkdir -p "$W/$n" && cp "$W/fa2/mha.h" "$W/$n/" && sed "$@" "$W/fa2_peel/mha.cu" > "$W/$n/mha.cu"
W=$W bash $H/scan.sh "$W/$n" "$n"
