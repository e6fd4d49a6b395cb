#!/usr/bin/env bash
set -u
[ -x /tmp/ord_L2_128B ] || /usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/ord2/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=6 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/ord_L2_128B
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 300 $NCU --kernel-name-base demangled -k regex:"sm90|xmma|cutlass|gemm_kernel|Kernel" --launch-count 4 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,l1tex__m_xbar2l1tex_read_sectors.sum \
  /tmp/ord_L2_128B --out /tmp/x.md --shape 5264x7640x7224 --check-only > $OUT/ncu_cublas.txt 2>&1
echo rc=$?
grep -E "^  [a-zA-Z_<].*\(|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|lts__|l1tex__m" $OUT/ncu_cublas.txt | head -60
