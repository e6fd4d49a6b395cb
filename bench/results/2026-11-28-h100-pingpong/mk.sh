#!/usr/bin/env bash
# mk.sh EXAMPLE.loom OUT.loom SEDFILE...: the program with its default mapping (m0) plus one copy of it
# edited by each SEDFILE, in order, as when(fastest) candidates m1, m2, ...
set -e
src=$1 out=$2; shift 2
awk '/^mapping sm_90a when\(/ { exit } { print }' "$src" > "$out"
for sedf in "$@"; do
  awk 'BEGIN{p=0} /^mapping sm_90a \{/ {p=1} p {print} p && /^\}/ {exit}' "$src" | sed -f "$sedf" | sed 's/^mapping sm_90a {/mapping sm_90a when(fastest) {/' >> "$out"
done
