#!/usr/bin/env python3
"""peer_kernels.py: which kernel cuBLAS / cuBLASLt runs (torch.profiler) for the shapes where loom trails it:
torch.matmul (bf16, row-major A: M x K, B: K x N, as bench/gemm_mappings.cu calls cuBLAS), torch._addmm_activation
with GELU (cuBLASLt's bias + GELU epilogue, gemm_bias_act's peer) and addmm with beta (gemm_residual's peer).
The kernel's name carries its tile, cluster and schedule (nvjet_sm90_tst_<tile>_<k x stages>_<cluster>_...).
Writes a markdown table to stdout."""
import sys
import torch
from torch.profiler import ProfilerActivity, profile

def kernels(fn):
    fn(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(); torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})

gemm_shapes = ["80x3896x2192", "487x1688x7536", "505x2856x1048", "977x104x6336", "4664x104x1320", "274x176x6136",
               "1576x1392x184", "664x1872x96", "3968x864x384", "4959x800x776", "7610x992x4592", "6736x5016x5456"]
fused_shapes = ["408x6896x6408", "6408x696x7384", "1880x5120x3840", "656x5248x7728", "5448x6448x2800", "2232x3288x3296",
                "4096x4096x4096", "8192x8192x1024"]
torch.manual_seed(0)
print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}\n")
print("| call | shape (MxNxK) | kernels |\n|---|---|---|")
for s in gemm_shapes + fused_shapes:
    m, n, k = map(int, s.split("x"))
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    print(f"| matmul | {s} | {', '.join(kernels(lambda: a @ b))} |")
    if s in fused_shapes:
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        c = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
        print(f"| _addmm_activation gelu | {s} | {', '.join(kernels(lambda: torch._addmm_activation(bias, a, b, use_gelu=True)))} |")
        print(f"| addmm beta=1 | {s} | {', '.join(kernels(lambda: c.clone().addmm_(a, b, beta=1.0)))} |")
    sys.stdout.flush()
