#!/usr/bin/env python3
"""Where gemm_bias_act loses to cuBLASLt: the kernels or the pick. Per shape, in one process on the same
inputs (bench/loom_abi.py time_rounds: CUDA events, two alternating rounds behind a sleep kernel, median):
cuBLAS's GEMM (torch.mm), cuBLASLt's bias + GELU epilogue (torch._addmm_activation), and for each loom
library (examples/gemm; examples/gemm_bias_act with the identity and with GELU) its launcher's pick and
EVERY mapping by index (loom_<entry>_mapping). Every output is poisoned (NaN) before its first call and
checked against an fp32 reference (relative Frobenius error < 1e-2); a mapping that refuses the call
(LOOM_ERR_*) is left out. Mapping labels come from --labels (NAME=FILE: one line per mapping index).

Usage: python3 bymap.py --lib NAME=PATH.so ... [--labels NAME=FILE ...] --shapes MxNxK,... --out FILE.md
NAME: gemm, identity or gelu, optionally with a suffix -VARIANT (a variant of that kernel, e.g. identity-hoist).
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


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", action="append", default=[])
    ap.add_argument("--labels", action="append", default=[])
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="")
    ap.add_argument("--pick-only", action="append", default=[], help="NAME: time only this library's pick")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    T = LoomTensor
    libs = []
    for s in args.lib:
        n, p = s.split("=", 1)
        libs.append((n, LoomLib(p, "gemm" if n == "gemm" else "gemm_bias_act", [T, T, T] if n == "gemm" else [T, T, T, T])))
    labels = {}
    for s in args.labels:
        n, p = s.split("=", 1)
        labels[n] = [l.strip() for l in open(p)]
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    rows = []
    bad = []
    for (M, N, K) in shapes:
        a = (torch.rand(M, K, device="cuda") * 2 - 1).to(torch.bfloat16)
        b = (torch.rand(K, N, device="cuda") * 2 - 1).to(torch.bfloat16)
        bias = (torch.rand(N, device="cuda") * 2 - 1).to(torch.bfloat16)
        prod = a.float() @ b.float()
        refs = {"gemm": prod, "identity": prod + bias.float(),
                "gelu": torch.nn.functional.gelu(prod + bias.float(), approximate="tanh")}
        methods, kind, bufs, outs = {}, {}, {}, {}
        methods["cuBLAS mm"] = lambda: outs.__setitem__("cuBLAS mm", a @ b)
        kind["cuBLAS mm"] = "gemm"
        methods["cuBLASLt bias+gelu"] = lambda: outs.__setitem__(
            "cuBLASLt bias+gelu", torch._addmm_activation(bias, a, b, use_gelu=True))
        kind["cuBLASLt bias+gelu"] = "gelu"
        methods["cuBLAS mm"]()
        methods["cuBLASLt bias+gelu"]()
        for n, lib in libs:
            for m in [None] + ([] if n in args.pick_only else list(range(lib.mappings))):
                key = "%s %s" % (n, "pick" if m is None else "m%d" % m)
                c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                la = (loom_tensor(c), loom_tensor(a), loom_tensor(b)) + (() if n == "gemm" else (loom_tensor(bias),))

                def call(lib=lib, la=la, m=m):
                    lib.force_mapping = m
                    try:
                        lib(*la)
                    finally:
                        lib.force_mapping = None
                try:
                    call()
                except RuntimeError:
                    continue  # this mapping refuses the call
                methods[key], kind[key], bufs[key] = call, n.split("-")[0], c
        torch.cuda.synchronize()
        errs = {}
        for k in list(methods):
            e = rel_err(outs.get(k, bufs.get(k)), refs[kind[k]])
            errs[k] = e
            if not e < 1e-2:
                bad.append("%dx%dx%d %s %.3g" % (M, N, K, k, e))
        est = time_rounds(methods, 3, rounds=1)
        reps = max(10, min(100, int(100.0 / max(max(t for t, _ in est.values()), 1e-3))))
        times = time_rounds(methods, reps)
        rows.append(((M, N, K), times))
        best = {}
        for n, lib in libs:
            ms = [(times[k][0], k) for k in times if k.startswith(n + " m")]
            best[n] = min(ms) if ms else (times[n + " pick"][0], n + " pick")
        print("%dx%dx%d cuBLAS=%.4f Lt=%.4f %s" % (M, N, K, times["cuBLAS mm"][0], times["cuBLASLt bias+gelu"][0],
              " ".join("%s pick=%.4f best=%s %.4f" % (n, times[n + " pick"][0], best[n][1], best[n][0]) for n, _ in libs)),
              flush=True)

    def label(n, key):
        if key.endswith(" pick"):
            return "pick (--pick-only)"
        i = int(key.split(" m")[1])
        lab = labels.get(n, [])
        return "m%d %s" % (i, lab[i]) if i < len(lab) else "m%d" % i

    with open(args.out, "w") as f:
        dev = torch.cuda.get_device_properties(0)
        f.write("# gemm_bias_act against cuBLAS / cuBLASLt, every mapping by index, %s, %s\n\n" % (dev.name, datetime.date.today()))
        f.write("- date: %s UTC; torch %s\n- command: `%s`\n- method: %s's docstring\n\n" % (
            datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), torch.__version__, args.command,
            os.path.relpath(os.path.abspath(__file__))))
        names = [n for n, _ in libs]
        f.write("| shape | cuBLAS mm ms | cuBLASLt bias+gelu ms | %s |\n" % " | ".join(
            "%s pick ms | %s best mapping | ms" % (n, n) for n in names))
        f.write("|---|---|---|%s\n" % ("---|---|---|" * len(names)))
        ratios = {k: [] for k in ("gemm best / gemm pick", "identity best / gemm best", "gelu best / identity best",
                                  "Lt / gelu pick", "Lt / gelu best", "cuBLAS / gemm best", "identity pick / identity best",
                                  "gelu pick / gelu best")}
        for (M, N, K), times in rows:
            best = {}
            cells = []
            for n in names:
                ms = [(times[k][0], k) for k in times if k.startswith(n + " m")]
                best[n] = min(ms) if ms else (times[n + " pick"][0], n + " pick")
                cells.append("%.4f | %s | %.4f" % (times[n + " pick"][0], label(n, best[n][1]), best[n][0]))
            f.write("| %dx%dx%d | %.4f | %.4f | %s |\n" % (M, N, K, times["cuBLAS mm"][0], times["cuBLASLt bias+gelu"][0],
                                                         " | ".join(cells)))
            if "gemm" in best:
                ratios["gemm best / gemm pick"].append(best["gemm"][0] / times["gemm pick"][0])
                ratios["cuBLAS / gemm best"].append(times["cuBLAS mm"][0] / best["gemm"][0])
            if "gemm" in best and "identity" in best:
                ratios["identity best / gemm best"].append(best["identity"][0] / best["gemm"][0])
            if "identity" in best:
                ratios["identity pick / identity best"].append(times["identity pick"][0] / best["identity"][0])
            if "gelu" in best and "identity" in best:
                ratios["gelu best / identity best"].append(best["gelu"][0] / best["identity"][0])
            if "gelu" in best:
                ratios["Lt / gelu pick"].append(times["cuBLASLt bias+gelu"][0] / times["gelu pick"][0])
                ratios["Lt / gelu best"].append(times["cuBLASLt bias+gelu"][0] / best["gelu"][0])
                ratios["gelu pick / gelu best"].append(times["gelu pick"][0] / best["gelu"][0])
            for n in names:  # a variant against its base kernel, pick for pick and mapping for mapping
                if "-" not in n or n.split("-")[0] not in best:
                    continue
                base = n.split("-")[0]
                ratios.setdefault("%s pick / %s pick" % (n, base), []).append(times[n + " pick"][0] / times[base + " pick"][0])
                ratios.setdefault("%s best / %s best" % (n, base), []).append(best[n][0] / best[base][0])
                same = [times[k][0] / times[base + k[len(n):]][0] for k in times if k.startswith(n + " m") and base + k[len(n):] in times]
                if same:
                    ratios.setdefault("%s / %s, same mapping (geomean over mappings)" % (n, base), []).append(geomean(same))
                if base == "gelu":
                    ratios.setdefault("Lt / %s pick" % n, []).append(times["cuBLASLt bias+gelu"][0] / times[n + " pick"][0])
        f.write("\nRatios of times (geomean, min, max over the shapes):\n\n")
        for k, v in ratios.items():
            if v:
                f.write("- %s: %.3f, %.3f, %.3f\n" % (k, geomean(v), min(v), max(v)))
        f.write("\nEvery mapping's time (ms), per shape:\n\n")
        for (M, N, K), times in rows:
            f.write("- %dx%dx%d: %s\n" % (M, N, K, ", ".join("%s %.4f" % (k, t) for k, (t, _) in times.items())))
        f.write("\nOutputs outside the tolerance: %d%s\n" % (len(bad), "".join("\n  - " + x for x in bad)))


if __name__ == "__main__":
    main()
