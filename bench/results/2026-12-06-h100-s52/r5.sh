#!/usr/bin/env bash
# Session 52 (prepared, not run): why sk34 (r3) crashed with SIGSEGV before printing its first row: each new mapping
# alone through --maps, then gdb's backtrace if the machine has gdb.
set -u
mkdir -p $OUT
tar xJf build-gpu/s52b.tar.xz build-gpu/s52/bin/sk34  # (prepared, not run: the session's device time was spent)
B=build-gpu/s52/bin/sk34
for m in 0 28 29 30 31 32 33; do
  timeout 20 stdbuf -oL -eL $B --maps $m --shape 600x1248x4736 --check-only --out /tmp/m$m.md > /tmp/m$m.log 2>&1
  echo "maps $m rc=$?"; tail -n 2 /tmp/m$m.log | cut -c1-300
done
command -v gdb && timeout 60 gdb -batch -ex run -ex bt --args $B --maps 28 --shape 600x1248x4736 --check-only --out /tmp/g.md 2>&1 | tail -25
