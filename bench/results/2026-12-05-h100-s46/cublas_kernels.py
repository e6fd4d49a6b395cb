"""Session 46: the cuBLAS kernels torch.mm (bf16, row-major) runs at the given shapes, one call each after a warm-up,
for ncu's LaunchStats (grid, block, cluster) and duration. Usage: python3 cublas_kernels.py MxNxK ..."""
import sys

import torch

for s in sys.argv[1:]:
    M, N, K = (int(x) for x in s.split("x"))
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    torch.cuda.nvtx.range_push(s)
    c = a @ b
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(s, float(c.float().abs().mean()))
