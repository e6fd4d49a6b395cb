#!/usr/bin/env bash
# Round 6 on the GPU machine: the tensor-expression front end's tile model with 64-row alternatives
# (src/tx/tile_model.cpp: 64 x 128 and 64 x 64 tiles on one warpgroup, up to 8 stages; a 64 x 64
# splitk(4) candidate follows). Generated and built on the development machine:
#   LOOM=build/loom LOOM_GEN_DIR=build-gpu/s26/gen_tx6 TX_BUILD_ONLY=1 bash tests/gpu/e2e/tx.sh build-gpu/s26/txw
#   nvcc ... -Ibuild-gpu/s26/gen_tx6/tx/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=9 bench/gemm_mappings.cu -o build-gpu/s26/gm_tx
# (1) tests/gpu/e2e/tx.sh on them (every generated kernel checked; the generated gemm's every
# mapping under memcheck and racecheck at 129x257x65); (2) the generated gemm's mappings timed on
# both GEMM sweeps.
set -u
R=$(mktemp -d)
LOOM_GEN_DIR=build-gpu/s26/gen_tx6 timeout 330 bash tests/gpu/e2e/tx.sh build-gpu/s26/txw > $R/r6-e2e-tx.log 2>&1
echo "e2e tx rc=$?"; grep -c "ERROR SUMMARY: 0 errors" $R/r6-e2e-tx.log; grep -c "RACECHECK SUMMARY: 0 hazards" $R/r6-e2e-tx.log
grep -E "FAIL|PASS" $R/r6-e2e-tx.log | tail -5
for seed in 20261127 20261125; do
  timeout 60 build-gpu/s26/gm_tx --out $R/r6-tx-sweep-$seed.md --sweep 40 --sweep-seed $seed \
    --command "bash bench/results/2026-11-29-h200-gemm-small/r6.sh" > /dev/null 2>&1
  echo "seed $seed rc=$? $(grep 'pick / cuBLAS: geomean' $R/r6-tx-sweep-$seed.md)"
done
tar czf $OUT/r6.tar.gz -C $R .
