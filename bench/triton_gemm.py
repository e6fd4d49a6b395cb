#!/usr/bin/env python3
"""Context numbers for bench/gemm_bench.cu: a Triton matmul (tutorial style, written for loom's bench)
and torch.matmul on the shapes of the loom-vs-cuBLAS bench, bf16 in and out, fp32 accumulation.

Each kernel is checked against torch.matmul (relative Frobenius error < 1e-2) and timed with
triton.testing.do_bench (median; do_bench clears the L2 cache between launches). Prints a markdown
table; --out FILE also writes it there.

Usage: python3 bench/triton_gemm.py [--out FILE.md] [--only SHAPE] [--dtype bf16|f16]
"""
import argparse
import sys
import time

import torch
import triton
import triton.language as tl

# (group, batch, M, N, K): the shapes of bench/gemm_bench.cu.
SHAPES = [("GEMM", 1, s, s, s) for s in (1024, 2048, 4096, 8192, 16384)] + [
    ("GEMM", 1, 4096, 14336, 4096),
    ("GEMM", 1, 8192, 8192, 1024),
    ("GEMM", 1, 16384, 4096, 4096),
    ("batched GEMM", 8, 4096, 4096, 4096),
    ("batched GEMM", 64, 1024, 1024, 1024),
]


def config(bm, bn, bk, stages, warps):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                         num_stages=stages, num_warps=warps)


# A handful of Hopper-friendly tiles; autotuning picks one per (M, N, K).
CONFIGS = [
    config(128, 256, 64, 3, 8),
    config(256, 128, 64, 3, 8),
    config(128, 128, 64, 4, 8),
    config(128, 128, 64, 4, 4),
    config(64, 256, 64, 4, 4),
    config(128, 256, 32, 4, 8),
]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_ab, stride_am, stride_ak,
                  stride_bb, stride_bk, stride_bn,
                  stride_cb, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    # Axis 0 walks the output tiles of one matrix, axis 1 the batch.
    tile = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # Visit tiles in column-major groups of GROUP_M rows so that consecutive programs share
    # panels of A and B in L2.
    per_group = GROUP_M * tiles_n
    first_m = (tile // per_group) * GROUP_M
    rows_here = min(tiles_m - first_m, GROUP_M)
    tm = first_m + (tile % per_group) % rows_here
    tn = (tile % per_group) // rows_here

    rm = tm * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tn * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    in_m = rm[:, None] < M
    in_n = rn[None, :] < N
    a_tile = a_ptr + batch * stride_ab + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + batch * stride_bb + rk[:, None] * stride_bk + rn[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_tile, mask=in_m & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_tile, mask=(rk[:, None] < k_left) & in_n, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk

    c_tile = c_ptr + batch * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=in_m & in_n)


def triton_matmul(a, b, c):
    """c[i] = a[i] @ b[i] for rank-3 tensors (batch first)."""
    batch, M, K = a.shape
    N = b.shape[2]
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), batch)
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), a.stride(2),
                        b.stride(0), b.stride(1), b.stride(2),
                        c.stride(0), c.stride(1), c.stride(2))
    return c


def rel_err(x, ref):
    x = x.double()
    ref = ref.double()
    return (torch.linalg.vector_norm(x - ref) / torch.linalg.vector_norm(ref)).item()


def run_shape(group, name, batch, M, N, K, dtype):
    """One markdown row, and whether Triton's result is right."""
    a = torch.rand(batch, M, K, device="cuda", dtype=dtype) * 2 - 1
    b = torch.rand(batch, K, N, device="cuda", dtype=dtype) * 2 - 1
    c = torch.full((batch, M, N), float("nan"), device="cuda", dtype=dtype)
    ref = torch.matmul(a, b)
    triton_matmul(a, b, c)
    torch.cuda.synchronize()
    err = rel_err(c, ref)
    ok = err < 1e-2 and not torch.isnan(c).any().item()
    del ref
    flops = 2.0 * batch * M * N * K
    if batch > 1:
        t_torch = triton.testing.do_bench(lambda: torch.matmul(a, b), return_mode="median")
    else:
        a2, b2 = a[0], b[0]
        t_torch = triton.testing.do_bench(lambda: torch.matmul(a2, b2), return_mode="median")
    t_triton = triton.testing.do_bench(lambda: triton_matmul(a, b, c), return_mode="median")
    best = matmul_kernel.best_config
    cfg = (f"{best.kwargs['BLOCK_M']}x{best.kwargs['BLOCK_N']}x{best.kwargs['BLOCK_K']} "
           f"s{best.num_stages} w{best.num_warps}")
    row = (f"| {group} | {name} | {flops / t_triton / 1e9:.1f} | {flops / t_torch / 1e9:.1f} "
           f"| {t_torch / t_triton:.3f} | {cfg} | {err:.2e}{'' if ok else ' FAIL'} |")
    return row, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the markdown table here")
    ap.add_argument("--only", help="one shape, e.g. 4096x4096x4096 or 8x4096x4096x4096")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
    args = ap.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    torch.manual_seed(int(time.time()))
    seed = torch.initial_seed()

    dev = torch.cuda.get_device_name()
    lines = [
        f"# Triton and torch.matmul GEMM, {dev}",
        "",
        f"- torch {torch.__version__}, triton {triton.__version__}, {args.dtype} in/out, fp32 "
        f"accumulation, inputs uniform in [-1, 1) (torch seed {seed})",
        "- time: `triton.testing.do_bench(..., return_mode='median')` (L2 cleared between "
        "launches); Triton autotuned over "
        f"{len(CONFIGS)} tile configs (the chosen one is shown)",
        "",
        "| group | shape | Triton TFLOP/s | torch.matmul TFLOP/s | Triton/torch | Triton config "
        "| Triton rel err vs torch |",
        "|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    failed = False
    for group, batch, M, N, K in SHAPES:
        name = f"{M}x{N}x{K}" if group == "GEMM" else f"{batch}x{M}x{N}x{K}"
        if args.only and name != args.only:
            continue
        try:
            row, ok = run_shape(group, name, batch, M, N, K, dtype)
        except Exception as e:  # keep going: one shape's failure must not hide the others
            row, ok = f"| {group} | {name} | - | - | - | - | error: {type(e).__name__}: {e} |", False
        torch.cuda.empty_cache()
        failed |= not ok
        lines.append(row)
        print(row, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
