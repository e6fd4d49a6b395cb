#!/usr/bin/env python3
"""Tensor-expression kernels (examples/tx, issue 13): the CUDA that `loom compile x.tx -o DIR` generates,
checked for correctness and timed against the hand-mapped loom kernel, cuBLAS and unfused torch, in one
process on the same inputs.

Libraries (bench/tx.sh builds one shared library per generated artifact; NAME=PATH.so):
  tx_gemm             gemm.tx            C = A·B                       loom_gemm
  gemm                examples/gemm      the hand-mapped program       loom_gemm
  tx_batched_gemm     batched_gemm.tx    C[l] = A[l]·B[l]^T (B stored [L, N, K])   loom_batched_gemm
  tx_gemm_bias_relu   gemm_bias_relu.tx  C = relu(A·B + bias)          loom_gemm_bias_relu
  tx_add_gemm         add_gemm.tx        D = A·B + X·Y                 loom_add_gemm
  tx_relu_gemm        relu_gemm.tx       C = relu(A)·B (a prologue)    loom_relu_gemm
  tx_mlp_H, tx_mlp_Y  mlp.tx             H = gelu(X·W1 + b1), Y = H·W2 (two kernels, called in turn)

Correctness first (--check-only: nothing else): every kernel at shapes that are not tile multiples (M, N, K not multiples of
the tiles, leading dimensions padded to 16 bytes) and at a large square one: fresh random inputs in
[-1, 1) per check, outputs poisoned (NaN) before the call, relative Frobenius error against an fp32
reference < 1e-2, nothing left NaN (rel_err is inf then). The reference is the .tx meaning: gelu in
the erf form (the lowered kernel computes the tanh form, 5e-4 away at most), mlp's H rounded to bf16.

Timing (contiguous tensors): M = N = K in 2048, 4096, 8192 (mlp: T = D = F; add_gemm: K2 = K;
batched_gemm: L = 8 at 2048, L = 4 at 4096): CUDA events around each call, warm-up, two alternating
rounds behind torch.cuda._sleep (bench/loom_abi.py time_rounds), median; ratio = peer time / tx time
(> 1: the tx kernel is faster). Peers: gemm vs the hand-mapped examples/gemm and cuBLAS (torch.mm);
the fused kernels vs unfused torch (and the cuBLASLt epilogue / addmm where torch has one, for
information). TFLOP/s counts 2·M·N·K per product.

Usage: python3 bench/tx_bench.py --lib NAME=PATH.so ... [--check-only] [--out FILE] [--seed S]
         [--sizes 2048,4096,8192] [--command "how it ran"]
Exit status: 0 if every tx output checked is correct; 1 otherwise.
"""
import argparse
import ctypes
import datetime
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loom_abi import LoomLib, LoomTensor, fmt, loom_tensor, rel_err, time_rounds  # noqa: E402

TOLERANCE = 1e-2
T = LoomTensor
ENTRIES = {"tx_gemm": ("gemm", 3), "gemm": ("gemm", 3), "tx_batched_gemm": ("batched_gemm", 3),
           "tx_gemm_bias_relu": ("gemm_bias_relu", 4), "tx_add_gemm": ("add_gemm", 5),
           "tx_relu_gemm": ("relu_gemm", 3),
           "tx_mlp_H": ("mlp_H", 4), "tx_mlp_Y": ("mlp_Y", 3)}


PAD = True  # --check pads rows (below); timing uses contiguous tensors, as the other benches do


def padded_extent(inner):
    return (inner + 7) // 8 * 8 + 8 if PAD else inner


def rnd(*shape):
    """Uniform [-1, 1) bf16; with PAD the innermost extent's storage padded to a multiple of 8 elements
    plus 8 (a 16-byte aligned row stride that is not the extent: strided views, as a user's slices are)."""
    inner = shape[-1]
    padded = padded_extent(inner)
    full = (torch.rand(*shape[:-1], padded, device="cuda") * 2 - 1).to(torch.bfloat16)
    return full[..., :inner]


def poisoned(*shape):
    inner = shape[-1]
    padded = padded_extent(inner)
    return torch.full((*shape[:-1], padded), float("nan"), device="cuda", dtype=torch.bfloat16)[..., :inner]


def vec(n):
    return (torch.rand(n, device="cuda") * 2 - 1).to(torch.bfloat16)


# ---- each case: (loom call, outputs to check against references, peers) for one shape -------------

def case_gemm(libs, shape):
    M, N, K = shape
    a, b = rnd(M, K), rnd(K, N)
    c = poisoned(M, N)
    outs = {}
    peers = {}
    if "gemm" in libs:
        ch = poisoned(M, N)
        outs["examples/gemm (hand-mapped)"] = ch
        peers["examples/gemm"] = lambda: libs["gemm"](loom_tensor(ch), loom_tensor(a), loom_tensor(b))
    peers["cuBLAS"] = lambda: torch.mm(a, b)
    ref = lambda: a.float() @ b.float()  # noqa: E731
    return {"loom": lambda: libs["tx_gemm"](loom_tensor(c), loom_tensor(a), loom_tensor(b)),
            "checks": [("C", c, ref)] + [(n, o, ref) for n, o in outs.items()], "peers": peers,
            "flops": 2.0 * M * N * K}


def case_batched(libs, shape):
    L, M, N, K = shape
    a, bt = rnd(L, M, K), rnd(L, N, K)  # B as the .tx file stores it: [L, N, K]
    c = poisoned(L, M, N)
    b_logical = bt.transpose(1, 2)      # [L, K, N], column-major: the ABI's B
    return {"loom": lambda: libs["tx_batched_gemm"](loom_tensor(c), loom_tensor(a), loom_tensor(b_logical)),
            "checks": [("C", c, lambda: torch.bmm(a.float(), b_logical.float()))],
            "peers": {"cuBLAS bmm": lambda: torch.bmm(a, b_logical)}, "flops": 2.0 * L * M * N * K}


def case_bias_relu(libs, shape):
    M, N, K = shape
    a, b, bias = rnd(M, K), rnd(K, N), vec(N)
    c = poisoned(M, N)
    return {"loom": lambda: libs["tx_gemm_bias_relu"](loom_tensor(c), loom_tensor(a), loom_tensor(b), loom_tensor(bias)),
            "checks": [("C", c, lambda: torch.relu(a.float() @ b.float() + bias.float()))],
            "peers": {"torch unfused": lambda: torch.relu(a @ b + bias),
                      "cuBLASLt epilogue": lambda: torch._addmm_activation(bias, a, b, use_gelu=False)},
            "flops": 2.0 * M * N * K}


def case_relu_gemm(libs, shape):
    M, N, K = shape
    a, b = rnd(M, K), rnd(K, N)
    c = poisoned(M, N)
    return {"loom": lambda: libs["tx_relu_gemm"](loom_tensor(c), loom_tensor(a), loom_tensor(b)),
            "checks": [("C", c, lambda: torch.relu(a.float()) @ b.float())],
            "peers": {"torch unfused": lambda: torch.relu(a) @ b}, "flops": 2.0 * M * N * K}


def case_add_gemm(libs, shape):
    M, N, K, K2 = shape
    a, b, x, y = rnd(M, K), rnd(K, N), rnd(M, K2), rnd(K2, N)
    d = poisoned(M, N)
    return {"loom": lambda: libs["tx_add_gemm"](loom_tensor(d), loom_tensor(a), loom_tensor(b), loom_tensor(x),
                                                loom_tensor(y)),
            "checks": [("D", d, lambda: a.float() @ b.float() + x.float() @ y.float())],
            "peers": {"torch unfused": lambda: a @ b + x @ y, "torch addmm": lambda: torch.addmm(a @ b, x, y)},
            "flops": 2.0 * M * N * (K + K2)}


def case_mlp(libs, shape):
    Tn, D, Fn = shape
    x, w1, b1, w2 = rnd(Tn, D), rnd(D, Fn), vec(Fn), rnd(Fn, D)
    h, y = poisoned(Tn, Fn), poisoned(Tn, D)

    def loom():
        libs["tx_mlp_H"](loom_tensor(h), loom_tensor(x), loom_tensor(w1), loom_tensor(b1))
        libs["tx_mlp_Y"](loom_tensor(y), loom_tensor(h), loom_tensor(w2))

    def h_ref():
        return F.gelu(x.float() @ w1.float() + b1.float())  # erf form: the .tx meaning

    def y_ref():
        return h_ref().to(torch.bfloat16).float() @ w2.float()

    return {"loom": loom, "checks": [("H", h, h_ref), ("Y", y, y_ref)],
            "peers": {"torch unfused": lambda: F.gelu(x @ w1 + b1) @ w2,
                      "torch addmm-gelu": lambda: torch._addmm_activation(b1, x, w1, use_gelu=True) @ w2},
            "flops": 4.0 * Tn * D * Fn}


# The check shapes include split-favoring ones (few output tiles, a long K: 128x256x8192, 3x100x200x6000),
# where the launcher's cost model picks a split-K candidate of the lowering (docs/tensor-expressions.md).
CASES = [  # name, needs, case, check shapes, timed shapes(size)
    ("gemm", ["tx_gemm"], case_gemm, [(333, 517, 259), (1153, 2049, 65), (128, 256, 8192), (4096, 4096, 4096)],
     lambda s: (s, s, s)),
    ("batched_gemm", ["tx_batched_gemm"], case_batched, [(3, 333, 517, 259), (3, 100, 200, 6000), (8, 2048, 2048, 2048)],
     lambda s: (8 if s <= 2048 else 4, s, s, s) if s <= 4096 else None),
    ("gemm_bias_relu", ["tx_gemm_bias_relu"], case_bias_relu, [(333, 517, 259), (128, 256, 8192), (4096, 4096, 4096)],
     lambda s: (s, s, s)),
    ("relu_gemm", ["tx_relu_gemm"], case_relu_gemm, [(333, 517, 259), (4096, 4096, 4096)], lambda s: (s, s, s)),
    ("add_gemm", ["tx_add_gemm"], case_add_gemm, [(333, 517, 259, 77), (4096, 4096, 4096, 4096)],
     lambda s: (s, s, s, s)),
    ("mlp", ["tx_mlp_H", "tx_mlp_Y"], case_mlp, [(333, 259, 517), (4096, 4096, 4096)], lambda s: (s, s, s)),
]


def check_case(st):
    """Runs the loom call (and the peers that produce checked outputs) once; {output: rel err}."""
    st["loom"]()
    for n, fn in st["peers"].items():
        if n.startswith("examples/"):
            fn()
    torch.cuda.synchronize()
    return {name: rel_err(out, ref()) for name, out, ref in st["checks"]}


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", action="append", default=[], help="NAME=PATH.so")
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "tx.md"))
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--sizes", default="2048,4096,8192")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 references in fp32
    libs, notes = {}, []
    for spec in args.lib:
        name, path = spec.split("=", 1)
        if name not in ENTRIES:  # SIMT kernels: tests/gpu/e2e/tx_simt.sh
            print("tx_bench: no check or timing entry for %s here, skipped" % name)
            continue
        entry, nargs = ENTRIES[name]
        libs[name] = LoomLib(path, entry, [T] * nargs)
        notes.append("%s: %s" % (name, libs[name].describe))
    dev = torch.cuda.get_device_properties(0)
    failed = False
    md = ["# loom tensor-expression kernels (examples/tx) vs hand-mapped loom, cuBLAS and unfused torch, %s, %s"
          % (dev.name, datetime.date.today()), ""]
    md.append("- device: %s (%d SMs); torch %s, CUDA %s" % (dev.name, dev.multi_processor_count, torch.__version__,
                                                           torch.version.cuda))
    md.append("- date: %s UTC" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"))
    md.append("- command: `%s`" % (args.command or " ".join(sys.argv)))
    md.append("- method: bench/tx_bench.py docstring (same inputs for every method in one process, CUDA events, "
              "warm-up, two alternating rounds behind a sleep kernel, median; ratio = peer ms / tx ms, > 1: tx "
              "faster; rel err vs an fp32 reference, < 1e-2)")
    md.append("- seed %d" % args.seed)
    md += ["- " + n for n in notes]
    md += ["", "## Correctness (fresh inputs, poisoned outputs, fp32 reference)", "",
           "| kernel | shape | output | rel err | status |", "|---|---|---|---|---|"]
    for name, needs, make, check_shapes, _ in CASES:
        if not all(n in libs for n in needs):
            continue
        for shape in check_shapes:
            st = make(libs, shape)
            try:
                errs = check_case(st)
            except Exception as e:  # noqa: BLE001 - a refused call is a failure to report, not a crash
                errs = {"(call)": float("inf")}
                print("%s %s: %s" % (name, shape, e))
            for out, e in errs.items():
                ok = e < TOLERANCE
                failed = failed or not ok
                md.append("| %s | %s | %s | %.2e | %s |" % (name, "x".join(map(str, shape)), out, e,
                                                          "ok" if ok else "FAIL"))
                print("check %s %s %s: rel err %.2e %s" % (name, "x".join(map(str, shape)), out, e,
                                                          "ok" if ok else "FAIL"), flush=True)
            del st
            torch.cuda.empty_cache()
    md.append("")
    summaries = []
    global PAD
    PAD = False
    if not args.check_only:
        sizes = [int(s) for s in args.sizes.split(",")]
        for name, needs, make, _, timed in CASES:
            if not all(n in libs for n in needs):
                continue
            rows, ratios = [], {}
            peers = None
            for s in sizes:
                shape = timed(s)
                if shape is None:
                    continue
                st = make(libs, shape)
                methods = {"tx": st["loom"]}
                methods.update(st["peers"])
                peers = list(st["peers"])
                errs = check_case(st)
                est = time_rounds(methods, 3, rounds=1)
                slowest = max(t for t, _ in est.values())
                reps = max(10, min(100, int(100.0 / max(slowest, 1e-3))))
                times = time_rounds(methods, reps)
                tx_ms = times["tx"][0]
                cells = ["x".join(map(str, shape)), "%.4f" % tx_ms, "%.1f" % (st["flops"] / tx_ms / 1e9),
                         "%.1f%%" % (100 * times["tx"][1] / tx_ms)]
                for p in peers:
                    r = times[p][0] / tx_ms
                    ratios.setdefault(p, []).append(r)
                    cells += ["%.4f" % times[p][0], "%.1f" % (st["flops"] / times[p][0] / 1e9), "%.3f" % r]
                worst = max(errs.values())
                failed = failed or not (worst < TOLERANCE)
                cells += ["%.1e" % worst, "ok" if worst < TOLERANCE else "FAIL"]
                rows.append("| " + " | ".join(cells) + " |")
                print("%s %s: tx %.4f ms, " % (name, "x".join(map(str, shape)), tx_ms) +
                      ", ".join("%s %.4f ms" % (p, times[p][0]) for p in peers), flush=True)
                del st
                torch.cuda.empty_cache()
            if not rows:
                continue
            md += ["## %s" % name, ""]
            head = "| shape | tx ms | tx TFLOP/s | tx spread | " + " | ".join(
                "%s ms | %s TFLOP/s | %s / tx" % (p, p, p) for p in peers) + " | rel err | status |"
            md += [head, "|" + "---|" * (head.count("|") - 1)] + rows + [""]
            for p, xs in ratios.items():
                s = "- %s vs %s: geomean %s (min %.3f, max %.3f) over %d sizes" % (
                    name, p, fmt(geomean(xs), "%.3f"), min(xs), max(xs), len(xs))
                md.append(s)
                summaries.append(s)
            md.append("")
    text = "\n".join(md) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print("\n".join(summaries))
    print("tx_bench: %s; wrote %s" % ("FAIL" if failed else "all outputs correct", args.out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
