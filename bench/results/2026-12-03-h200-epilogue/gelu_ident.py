#!/usr/bin/env python3
"""How exactly each GEMM + bias + GELU kernel computes its activation: C = gelu(A·B + bias) with A the
identity (M = K), so that A·B = B exactly (one nonzero product per output) and only the bias add and
the activation round. Against the exact value (float64: gelu_tanh(b + bias), rounded to bf16): the share
of outputs whose bf16 value differs, the share off by more than one bf16 ulp, and the largest absolute
error. B's entries are normal with standard deviation 3 (GELU's whole curve), bias uniform in [-1, 1].

Usage: python3 gelu_ident.py [--lib NAME=PATH.so ...] [--n 2048] [--seed 20261203]
Peers: torch._addmm_activation(use_gelu=True) (cuBLASLt's bias + GELU epilogue) and
torch.nn.functional.gelu(approximate='tanh') on the bf16 sum (torch's own elementwise kernel).
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from loom_abi import LoomLib, LoomTensor, loom_tensor  # noqa: E402


def exact(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def ulps(a, b):
    """|a - b| in bf16 ulps (both bf16), through the ordered integer view."""
    def ordered(t):
        i = t.view(torch.int16).to(torch.int32)
        return torch.where(i < 0, -(i & 0x7FFF), i)
    return (ordered(a) - ordered(b)).abs()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", action="append", default=[])
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    n = args.n
    a = torch.eye(n, device="cuda", dtype=torch.bfloat16)
    b = (torch.randn(n, n, device="cuda") * 3).to(torch.bfloat16)
    bias = (torch.rand(n, device="cuda") * 2 - 1).to(torch.bfloat16)
    ref = exact(b.double() + bias.double())
    ref16 = ref.to(torch.bfloat16)
    outs = {"cuBLASLt bias+GELU": torch._addmm_activation(bias, a, b, use_gelu=True),
            "torch gelu(tanh) on bf16 sum": torch.nn.functional.gelu(b + bias, approximate="tanh")}
    for spec in args.lib:
        name, path = spec.split("=", 1)
        lib = LoomLib(path, "gemm_bias_act", [LoomTensor] * 4)
        c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        lib(loom_tensor(c), loom_tensor(a), loom_tensor(b), loom_tensor(bias))
        outs["loom " + name] = c
    torch.cuda.synchronize()
    print("| kernel | bf16 differs from exact | off > 1 ulp | max ulps | max abs err |")
    print("|---|---|---|---|---|")
    for k, y in outs.items():
        u = ulps(y, ref16)
        print("| %s | %.3f%% | %.4f%% | %d | %.2e |" % (k, 100.0 * (u > 0).float().mean().item(),
              100.0 * (u > 1).float().mean().item(), u.max().item(), (y.double() - ref).abs().max().item()))


if __name__ == "__main__":
    main()
