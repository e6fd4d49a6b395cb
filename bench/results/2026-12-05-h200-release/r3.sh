#!/usr/bin/env bash
# Session 40, device call 3: ncu at 487x1688x7536 on gm_n (prepare2.sh's build-gpu/s40/n: examples/gemm + candidates3.sh)
# — mapping 23 (cuBLAS's 64 x 128 tile on 4 x 2 clusters, this session's release), mapping 3 (the fastest loom mapping
# there, 128 x 128 splitk(2)) and cuBLAS's kernel — with the scheduler, warp-state and source-counter sections.
set -u
S=build-gpu/s40
T=$(mktemp -d)
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$S/n -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=29 \
  bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm_n > $T/r3-build.log 2>&1 || echo "build failed"
prof() {  # SHAPE KERNEL-REGEX TAG
  echo "=== $1 $2" >> $T/r3-ncu.txt
  timeout 60 $NCU --kernel-name-base demangled -k "regex:$2" -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section SourceCounters \
    $S/gm_n --out $T/ncu-$3.md --check-only --shape $1 >> $T/r3-ncu.txt 2>&1 || echo "ncu rc=$? $1 $2"
  tar czf $OUT/r3.tgz -C $T .  # after each profile: a caller's timeout keeps what was done
}
prof 487x1688x7536 'mapping23::' m23
prof 487x1688x7536 'mapping3::' m3
prof 487x1688x7536 'nvjet|sm90_|cutlass' cub
echo "ncu: $(grep -c 'Duration' $T/r3-ncu.txt) kernels profiled"
tar czf $OUT/r3.tgz -C $T .
