#!/usr/bin/env python3
"""Where gemm_bias_act's time goes, against the same for the library: per shape, in one process on the
same inputs (bench/loom_abi.py time_rounds: CUDA events, two alternating rounds behind a sleep kernel,
median), cuBLAS's GEMM (torch.mm), cuBLASLt's bias epilogue (torch.addmm) and bias + GELU epilogue
(torch._addmm_activation), loom's GEMM (examples/gemm) and loom's gemm_bias_act with each activation
library given (the launcher's pick each). Every output is poisoned first and checked against an fp32
reference (relative Frobenius error < 1e-2).

Usage: python3 diag.py --gemm PATH.so --gba NAME=PATH.so ... [--sweep 30] [--seed 20261125] --out FILE.md
NAME: identity, or gelu[-FORM] (GELU with a form of runtime.cuh's gelu_tanh; bench/micro/gelu_forms.cu).
"""
import argparse
import datetime
import math
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
from loom_abi import LoomLib, LoomTensor, loom_tensor, rel_err, time_rounds  # noqa: E402

SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096), (8192, 8192, 1024)]


def sweep_shapes(n, seed):  # bench/fused_bench.py's sweep
    import random
    rng = random.Random(seed)
    return [tuple(8 * rng.randint(32, 1024) for _ in range(3)) for _ in range(n)]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gemm", required=True)
    ap.add_argument("--gba", action="append", default=[])
    ap.add_argument("--sweep", type=int, default=30)
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    T = LoomTensor
    gemm = LoomLib(args.gemm, "gemm", [T, T, T])
    gbas = [(n, LoomLib(p, "gemm_bias_act", [T, T, T, T])) for n, p in (s.split("=", 1) for s in args.gba)]
    shapes = [(s, "listed") for s in SHAPES] + [(s, "sweep") for s in sweep_shapes(args.sweep, args.seed)]
    cols = ["cuBLAS mm", "cuBLASLt bias", "cuBLASLt bias+gelu", "loom gemm"] + ["loom " + n for n, _ in gbas]
    rows = []
    bad = 0
    for (M, N, K), group in shapes:
        a = (torch.rand(M, K, device="cuda") * 2 - 1).to(torch.bfloat16)
        b = (torch.rand(K, N, device="cuda") * 2 - 1).to(torch.bfloat16)
        bias = (torch.rand(N, device="cuda") * 2 - 1).to(torch.bfloat16)
        prod = a.float() @ b.float()
        refs = {"none": prod, "identity": prod + bias.float(),
                "gelu": torch.nn.functional.gelu(prod + bias.float(), approximate="tanh")}
        outs = {}
        cg = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        gargs = (loom_tensor(cg), loom_tensor(a), loom_tensor(b))
        m = {"cuBLAS mm": lambda: outs.__setitem__("cuBLAS mm", a @ b),
             "cuBLASLt bias": lambda: outs.__setitem__("cuBLASLt bias", torch.addmm(bias, a, b)),
             "cuBLASLt bias+gelu": lambda: outs.__setitem__("cuBLASLt bias+gelu",
                                                            torch._addmm_activation(bias, a, b, use_gelu=True)),
             "loom gemm": lambda: gemm(*gargs)}
        kind = {"cuBLAS mm": "none", "cuBLASLt bias": "identity", "cuBLASLt bias+gelu": "gelu", "loom gemm": "none"}
        bufs = {"loom gemm": cg}
        for n, lib in gbas:
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            la = (loom_tensor(c), loom_tensor(a), loom_tensor(b), loom_tensor(bias))
            m["loom " + n] = (lambda lib=lib, la=la: lib(*la))
            kind["loom " + n] = "identity" if n == "identity" else "gelu"
            bufs["loom " + n] = c
        for fn in m.values():
            fn()
        torch.cuda.synchronize()
        errs = {}
        for k in m:
            y = outs.get(k, bufs.get(k))
            errs[k] = rel_err(y, refs[kind[k]])
            if not errs[k] < 1e-2:
                bad += 1
        est = time_rounds(m, 3, rounds=1)
        reps = max(10, min(100, int(100.0 / max(max(t for t, _ in est.values()), 1e-3))))
        times = time_rounds(m, reps)
        rows.append(((M, N, K), group, times, errs))
        print("%dx%dx%d %s" % (M, N, K, " ".join("%s=%.4f" % (k, times[k][0]) for k in cols)), flush=True)

    with open(args.out, "w") as f:
        dev = torch.cuda.get_device_properties(0)
        f.write("# gemm_bias_act's time against cuBLAS / cuBLASLt, %s, %s\n\n" % (dev.name, datetime.date.today()))
        f.write("- date: %s UTC; torch %s\n- command: `%s`\n" % (
            datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), torch.__version__, args.command))
        f.write("- method: bench/results/2026-12-03-h200-epilogue/diag.py docstring; seed %d, sweep %d shapes\n\n" % (
            args.seed, args.sweep))
        f.write("| shape | group | " + " | ".join(c + " ms" for c in cols) + " | max rel err |\n")
        f.write("|---|---|" + "---|" * len(cols) + "---|\n")
        for shape, group, times, errs in rows:
            f.write("| %dx%dx%d | %s | " % (*shape, group) + " | ".join("%.4f" % times[c][0] for c in cols) +
                    " | %.1e |\n" % max(errs.values()))
        f.write("\nRatios (time of the first / time of the second; geomean, min, max):\n\n")
        pairs = [("cuBLAS mm", "loom gemm"), ("cuBLASLt bias", "cuBLAS mm"), ("cuBLASLt bias+gelu", "cuBLAS mm"),
                 ("cuBLASLt bias+gelu", "cuBLASLt bias")]
        for n, _ in gbas:
            pairs += [("loom gemm", "loom " + n)]
            pairs += [("cuBLASLt bias+gelu" if n != "identity" else "cuBLASLt bias", "loom " + n)]
        for g in ("listed", "sweep"):
            for x, y in pairs:
                r = [times[x][0] / times[y][0] for _, gg, times, _ in rows if gg == g]
                if r:
                    f.write("- %s: %s / %s: %.3f, %.3f, %.3f\n" % (g, x, y, geomean(r), min(r), max(r)))
        f.write("\nOutputs outside the tolerance: %d\n" % bad)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
