set -u
mkdir -p $OUT
bash bench/results/2026-12-06-h100-s51/r5.sh
mkdir -p $OUT/r4 && OUT=$OUT/r4 bash bench/results/2026-12-06-h100-s51/r4.sh
ls -la $OUT $OUT/r4
