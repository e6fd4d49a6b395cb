set -u
O=$OUT
mkdir -p $O/r4; T=$(mktemp -d)
R4_LIMIT=150 OUT=$O/r4 bash bench/results/2026-12-06-h100-s52/r4.sh
( while sleep 10; do tar cJf $O/r3.tar.xz.tmp -C $T . 2>/dev/null && mv $O/r3.tar.xz.tmp $O/r3.tar.xz; done ) &
P=$!
OUT=$T timeout 200 bash build-gpu/s52r3.sh
kill $P; tar cJf $O/r3.tar.xz -C $T .
