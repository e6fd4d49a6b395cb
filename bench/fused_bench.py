#!/usr/bin/env python3
"""Fused GEMM kernels: loom's generated dual_gemm, gemm_bias_act, gemm_residual, gemm_reduce, add_gemm and
relu_gemm against what a user would call instead (cuBLAS / cuBLASLt through torch, unfused torch, fused
Triton kernels written here), in one process on the same inputs.

Cases (NAME = the generated directory's name; bench/fused.sh builds one shared library per directory):
  dual_gemm              D = silu(A·B1) * (A·B2)     peers: torch unfused (two GEMMs + silu·mul),
                                                     torch concat (one GEMM against [B1 | B2], stored
                                                     concatenated ahead of time, + silu·mul), Triton fused
  gemm_bias_act_ACT      C = act(A·B + bias)         peers: torch.addmm / torch._addmm_activation (the
                         ACT: identity relu gelu silu  cuBLASLt bias(+ReLU/GELU) epilogue; SiLU has none:
                         gelu_fast                   (gelu_fast: GELU with tanh.approx, against the same peers)
                                                     addmm + silu), torch unfused (matmul, add, act)
  gemm_residual          D = A·B + alpha·C           peers: cuBLAS with beta (D.addmm_(A, B, beta=alpha)
                                                     on a D that holds C: one GEMM call), torch unfused
  gemm_reduce_MAPPING    C = A·B, R = rowsum(C)      peers: torch unfused (matmul + sum), Triton fused
                                                     (row sums of each tile added into R atomically)
  add_gemm               E = A·B + C·D               peers: torch unfused (two GEMMs + add), torch.addmm
                                                     (the second GEMM accumulates into the first's result)
  relu_gemm              C = relu(A)·B               peer: torch unfused (relu + GEMM)

bf16 inputs and outputs, fp32 accumulation; bias and C are bf16; R is fp32. Shapes: M = N = K in
2048, 4096, 8192, the LLM shapes 4096x14336x4096 and 8192x8192x1024 (M x N x K; add_gemm: L = K), and
with --sweep N, N seeded random shapes (each dimension a multiple of 8 in [256, 8192]) for
gemm_bias_act_* and add_gemm (and the cases --sweep-cases names), summarized as geomean / min / max.

Correctness: every output against an fp32 torch reference from the same bf16 inputs (relative
Frobenius error < 1e-2, else the row is FAIL); outputs are poisoned (NaN) before the checked call.
Timing: CUDA events around each call, warm-up, then two alternating rounds behind torch.cuda._sleep
(bench/loom_abi.py time_rounds); median over both rounds; the spread is the difference of the rounds'
medians. The same inputs are used by every method (no rotation: the small shapes partly live in L2
for all methods alike). TFLOP/s counts the GEMM flops only: 2·M·N·K per product.

Usage: python3 bench/fused_bench.py --lib NAME=PATH.so ... [--out FILE] [--reps N] [--seed S] [--sweep N]
         [--sweep-cases A,B] [--only NAME] [--shapes MxNxK,...] [--kernels] [--command "how it ran"]
--kernels lists the CUDA kernels each method launches at the first shape (torch.profiler): evidence of
which library path a peer takes (cuBLASLt epilogue or not).
Exit status: 0 if every loom output measured is correct; 1 otherwise.
"""
import argparse
import ctypes
import datetime
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loom_abi import LoomLib, LoomTensor, fmt, loom_tensor, rel_err, time_rounds  # noqa: E402

TOLERANCE = 1e-2
SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096), (8192, 8192, 1024)]
SWEPT = ("gemm_bias_act", "add_gemm")
T = LoomTensor
F32 = ctypes.c_float


# ------------------------------------------------------------------------------------------------
# Triton fused kernels (written here; a straightforward tiled matmul with the fused part in the epilogue).

def _configs():
    return [triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_stages=4, num_warps=8),
            triton.Config({"BM": 128, "BN": 256, "BK": 64}, num_stages=3, num_warps=8),
            triton.Config({"BM": 128, "BN": 64, "BK": 64}, num_stages=4, num_warps=4)]


@triton.autotune(configs=_configs(), key=["M", "N", "K"])
@triton.jit
def _dual_gemm_kernel(a_ptr, b1_ptr, b2_ptr, d_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc1 = tl.zeros([BM, BN], tl.float32)
    acc2 = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        bmask = ((k + rk)[:, None] < K) & (rn[None, :] < N)
        b1 = tl.load(b1_ptr + (k + rk)[:, None] * N + rn[None, :], mask=bmask, other=0.0)
        b2 = tl.load(b2_ptr + (k + rk)[:, None] * N + rn[None, :], mask=bmask, other=0.0)
        acc1 = tl.dot(a, b1, acc1)
        acc2 = tl.dot(a, b2, acc2)
    d = acc1 * tl.sigmoid(acc1) * acc2
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], d.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def triton_dual_gemm(a, b1, b2, d):
    M, K = a.shape
    N = b1.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))  # noqa: E731
    _dual_gemm_kernel[grid](a, b1, b2, d, M, N, K)


# reset_to_zero: autotuning runs the kernel once per config, and each run adds into R.
@triton.autotune(configs=_configs(), key=["M", "N", "K"], reset_to_zero=["r_ptr"])
@triton.jit
def _gemm_rowsum_kernel(a_ptr, b_ptr, c_ptr, r_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=cmask)
    tl.atomic_add(r_ptr + rm, tl.sum(acc, 1), mask=rm < M)


def triton_gemm_rowsum(a, b, c, r):
    """C = A·B and R = row sums of the fp32 accumulator; R is cleared first (part of the call)."""
    M, K = a.shape
    N = b.shape[1]
    r.zero_()
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))  # noqa: E731
    _gemm_rowsum_kernel[grid](a, b, c, r, M, N, K)


# ------------------------------------------------------------------------------------------------
# Cases. Each builds, for one shape, the loom call, the peers, the fp32 reference and how to check.

ACTS = {
    "identity": (lambda x: x, None),
    "relu": (torch.relu, False),
    "gelu": (lambda x: F.gelu(x, approximate="tanh"), True),
    "gelu_fast": (lambda x: F.gelu(x, approximate="tanh"), True),  # the same function, tanh.approx on the GPU
    "silu": (F.silu, None),
}


class Case:
    """name, entry (loom_<entry>), argtypes, flops(shape), setup(shape, lib) -> dict with
    'loom' (callable or None), 'peers' ({name: callable}), 'check' (callable -> {method: rel err})."""

    def __init__(self, name, entry, argtypes, flops, setup, peers):
        self.name, self.entry, self.argtypes, self.flops, self.setup, self.peers = (
            name, entry, argtypes, flops, setup, peers)


def rnd(*shape):
    return (torch.rand(*shape, device="cuda") * 2 - 1).to(torch.bfloat16)


def poisoned(*shape, dtype=torch.bfloat16):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def errors(outs, loom_out, ref):
    """Relative error of every peer's output (outs: {method: tensor}) and of loom's (None: no loom)."""
    res = {n: rel_err(o, ref) for n, o in outs.items()}
    if loom_out is not None:
        res["loom"] = rel_err(loom_out, ref)
    return res


def setup_dual_gemm(shape, lib):
    M, N, K = shape
    a, b1, b2 = rnd(M, K), rnd(K, N), rnd(K, N)
    bc = torch.cat([b1, b2], dim=1).contiguous()  # the careful user's weights, stored concatenated
    d = poisoned(M, N)
    args = (loom_tensor(d), loom_tensor(a), loom_tensor(b1), loom_tensor(b2)) if lib else None
    outs = {}

    def unfused():
        outs["torch unfused"] = F.silu(a @ b1) * (a @ b2)

    def concat():
        y = a @ bc
        outs["torch concat"] = F.silu(y[:, :N]) * y[:, N:]

    td = poisoned(M, N)

    def tri():
        triton_dual_gemm(a, b1, b2, td)
        outs["Triton fused"] = td

    def check():
        af = a.float()
        ref = F.silu(af @ b1.float()) * (af @ b2.float())
        return errors(outs, d if lib else None, ref)

    return {"loom": (lambda: lib(*args)) if lib else None,
            "peers": {"torch unfused": unfused, "torch concat": concat, "Triton fused": tri}, "check": check}


def make_setup_bias_act(act):
    fn, use_gelu = ACTS[act]

    def setup(shape, lib):
        M, N, K = shape
        a, b, bias = rnd(M, K), rnd(K, N), rnd(N)
        c = poisoned(M, N)
        args = (loom_tensor(c), loom_tensor(a), loom_tensor(b), loom_tensor(bias)) if lib else None
        outs = {}

        def lt():
            if use_gelu is None:
                y = torch.addmm(bias, a, b)
                outs["cuBLASLt epilogue"] = y if act == "identity" else fn(y)
            else:
                outs["cuBLASLt epilogue"] = torch._addmm_activation(bias, a, b, use_gelu=use_gelu)

        def unfused():
            outs["torch unfused"] = fn(a @ b + bias)

        def check():
            ref = fn(a.float() @ b.float() + bias.float())
            return errors(outs, c if lib else None, ref)

        return {"loom": (lambda: lib(*args)) if lib else None,
                "peers": {"cuBLASLt epilogue": lt, "torch unfused": unfused}, "check": check}
    return setup


ALPHA = 0.5


def setup_residual(shape, lib):
    M, N, K = shape
    a, b, c = rnd(M, K), rnd(K, N), rnd(M, N)
    d = poisoned(M, N)
    args = (loom_tensor(d), loom_tensor(a), loom_tensor(b), loom_tensor(c), ALPHA) if lib else None
    outs = {}
    dd = c.clone()
    first = [True]

    def beta():
        # One cuBLAS call with beta = alpha on an output that holds C (repeated calls keep changing it;
        # only the first call's result is checked).
        dd.addmm_(a, b, beta=ALPHA)
        if first[0]:
            outs["cuBLAS beta"] = dd.clone()
            first[0] = False

    def unfused():
        outs["torch unfused"] = torch.add(a @ b, c, alpha=ALPHA)

    def check():
        ref = a.float() @ b.float() + ALPHA * c.float()
        return errors(outs, d if lib else None, ref)

    return {"loom": (lambda: lib(*args)) if lib else None,
            "peers": {"cuBLAS beta": beta, "torch unfused": unfused}, "check": check}


def setup_reduce(shape, lib):
    M, N, K = shape
    a, b = rnd(M, K), rnd(K, N)
    c, r = poisoned(M, N), poisoned(M, dtype=torch.float32)
    args = (loom_tensor(c), loom_tensor(r), loom_tensor(a), loom_tensor(b)) if lib else None
    outs = {}

    def unfused():
        y = a @ b
        outs["torch unfused"] = (y, y.sum(1, dtype=torch.float32))

    tc, tr = poisoned(M, N), poisoned(M, dtype=torch.float32)

    def tri():
        triton_gemm_rowsum(a, b, tc, tr)
        outs["Triton fused"] = (tc, tr)

    def check():
        ref = a.float() @ b.float()
        rref = ref.sum(1)
        res = {n: max(rel_err(o[0], ref), rel_err(o[1], rref)) for n, o in outs.items()}
        if lib:
            res["loom"] = max(rel_err(c, ref), rel_err(r, rref))
        return res

    return {"loom": (lambda: lib(*args)) if lib else None,
            "peers": {"torch unfused": unfused, "Triton fused": tri}, "check": check}


def setup_add_gemm(shape, lib):
    M, N, K = shape
    L = K
    a, b, c, dm = rnd(M, K), rnd(K, N), rnd(M, L), rnd(L, N)
    e = poisoned(M, N)
    args = (loom_tensor(e), loom_tensor(a), loom_tensor(b), loom_tensor(c), loom_tensor(dm)) if lib else None
    outs = {}

    def unfused():
        outs["torch unfused"] = a @ b + c @ dm

    def addmm():
        outs["torch addmm"] = torch.addmm(a @ b, c, dm)

    def check():
        ref = a.float() @ b.float() + c.float() @ dm.float()
        return errors(outs, e if lib else None, ref)

    return {"loom": (lambda: lib(*args)) if lib else None,
            "peers": {"torch unfused": unfused, "torch addmm": addmm}, "check": check}


def setup_relu_gemm(shape, lib):
    M, N, K = shape
    a, b = rnd(M, K), rnd(K, N)
    c = poisoned(M, N)
    args = (loom_tensor(c), loom_tensor(a), loom_tensor(b)) if lib else None
    outs = {}

    def unfused():
        outs["torch unfused"] = torch.relu(a) @ b

    def check():
        ref = torch.relu(a.float()) @ b.float()
        return errors(outs, c if lib else None, ref)

    return {"loom": (lambda: lib(*args)) if lib else None, "peers": {"torch unfused": unfused}, "check": check}


def gemm_flops(shape):
    M, N, K = shape
    return 2.0 * M * N * K


CASES = [Case("dual_gemm", "dual_gemm", [T, T, T, T], lambda s: 2 * gemm_flops(s), setup_dual_gemm,
              ["torch unfused", "torch concat", "Triton fused"])]
for _act in ACTS:
    CASES.append(Case("gemm_bias_act_" + _act, "gemm_bias_act", [T, T, T, T], gemm_flops, make_setup_bias_act(_act),
                      ["cuBLASLt epilogue", "torch unfused"]))
CASES += [
    Case("gemm_residual", "gemm_residual", [T, T, T, T, F32], gemm_flops, setup_residual, ["cuBLAS beta", "torch unfused"]),
    Case("gemm_reduce_registers", "gemm_reduce", [T, T, T, T], gemm_flops, setup_reduce, ["torch unfused", "Triton fused"]),
    Case("gemm_reduce_shared", "gemm_reduce", [T, T, T, T], gemm_flops, setup_reduce, ["torch unfused", "Triton fused"]),
    Case("add_gemm", "add_gemm", [T, T, T, T, T], lambda s: 2 * gemm_flops(s), setup_add_gemm,
         ["torch unfused", "torch addmm"]),
    Case("relu_gemm", "relu_gemm", [T, T, T], gemm_flops, setup_relu_gemm, ["torch unfused"]),
]


def sweep_shapes(n, seed):
    rng = random.Random(seed)
    return [tuple(8 * rng.randint(32, 1024) for _ in range(3)) for _ in range(n)]


def kernels_of(fn):
    """Names of the CUDA kernels one call of fn launches."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sorted(set(names))


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def pinned(lib, run, m):
    """`run` (a call of lib's entry) on mapping m of lib, whatever the launcher would pick."""
    def call():
        lib.force_mapping = m
        try:
            run()
        finally:
            lib.force_mapping = None
    return call


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", action="append", default=[], help="NAME=PATH.so (NAME: a case, e.g. dual_gemm)")
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "fused.md"))
    ap.add_argument("--reps", type=int, default=0, help="launches per round (default: ~100 ms worth, 10..100)")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--sweep", type=int, default=0, help="random shapes for gemm_bias_act_* and add_gemm")
    ap.add_argument("--sweep-acts", default="gelu", help="comma-separated activations swept (default gelu)")
    ap.add_argument("--sweep-cases", default="", help="comma-separated further cases swept (e.g. relu_gemm)")
    ap.add_argument("--only", action="append", default=[], help="case names to run (default: those with a --lib)")
    ap.add_argument("--shapes", default="", help="MxNxK,... instead of the listed shapes")
    ap.add_argument("--kernels", action="store_true")
    ap.add_argument("--by-mapping", action="store_true",
                    help="also time every mapping of loom's kernel (loom_<entry>_mapping), a table per case, and print "
                         "the cost model's estimate of each (loom_<entry>_estimates)")
    ap.add_argument("--tune", action="store_true",
                    help="also time loom after loom_<entry>_tune ('loom tuned'); 'loom' is then the cost model's pick, forced")
    ap.add_argument("--command", default="")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    libs = {}
    notes = []
    for spec in args.lib:
        name, path = spec.split("=", 1)
        case = next((c for c in CASES if c.name == name), None)
        if case is None:
            print("fused_bench: no case %s (ignored)" % name)
            continue
        libs[name] = LoomLib(path, case.entry, case.argtypes)
        notes.append("loom %s: %s" % (name, libs[name].describe))
    wanted = args.only or list(libs)
    shapes = SHAPES
    if args.shapes:
        shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    sweep = sweep_shapes(args.sweep, args.seed) if args.sweep else []
    sweep_cases = {"gemm_bias_act_" + a for a in args.sweep_acts.split(",")} | {"add_gemm"}
    sweep_cases |= {c for c in args.sweep_cases.split(",") if c}

    dev = torch.cuda.get_device_properties(0)
    rows = []
    failed = False
    kernel_notes = []
    by_mapping = []
    for case in CASES:
        if case.name not in wanted:
            continue
        lib = libs.get(case.name)
        case_shapes = [(s, "listed") for s in shapes]
        if case.name in sweep_cases:
            case_shapes += [(s, "sweep") for s in sweep]
        for idx, (shape, group) in enumerate(case_shapes):
            st = case.setup(shape, lib)
            methods = {}
            if st["loom"]:
                methods["loom"] = st["loom"]
            tuning = None
            if args.tune and lib and st["loom"]:
                # the cost model's pick first (an untuned key), then tune, then what the call runs now
                try:
                    lib.mode = "pick"
                    st["loom"]()
                    rule = lib.last
                    lib.mode = "tune"
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    st["loom"]()
                    torch.cuda.synchronize()
                    tune_ms = 1e3 * (time.perf_counter() - t0)
                    lib.mode = "pick"
                    st["loom"]()
                    tuning = {"rule": rule, "tuned": lib.last, "tune_ms": tune_ms}
                finally:
                    lib.mode = None

                methods["loom"] = pinned(lib, st["loom"], tuning["rule"])
                methods["loom tuned"] = st["loom"]
            methods.update(st["peers"])
            status = "ok"
            try:
                for fn in methods.values():
                    fn()
                torch.cuda.synchronize()
                errs = st["check"]()
            except Exception as e:  # a refused shape or a crash in one method: say so, go on
                print("%s %s: %s" % (case.name, shape, e))
                rows.append({"case": case.name, "shape": shape, "group": group, "status": "error: %s" % e})
                failed = failed or bool(lib)
                torch.cuda.synchronize()
                continue
            if args.kernels and idx == 0:
                for n, fn in methods.items():
                    kernel_notes.append("%s %s %s: %s" % (case.name, "x".join(map(str, shape)), n,
                                                         "; ".join(kernels_of(fn))))
            bad = [n for n, e in errs.items() if not (e < TOLERANCE)]
            if "loom" in bad:
                failed = True
            if bad:
                status = "FAIL (%s)" % ", ".join(bad)
            # ~100 ms of launches per round, from one timed call of the slowest method
            est = time_rounds(methods, 3, rounds=1)
            slowest = max(t for t, _ in est.values())
            reps = args.reps or max(10, min(100, int(100.0 / max(slowest, 1e-3))))
            times = time_rounds(methods, reps)
            if args.by_mapping and lib:
                # every mapping by index, against the pick, in rounds of their own
                per = {"pick": st["loom"]}

                for m in range(lib.mappings):
                    try:
                        pinned(lib, st["loom"], m)()
                        torch.cuda.synchronize()
                        per["m%d" % m] = pinned(lib, st["loom"], m)
                    except RuntimeError:
                        pass
                est = None  # the cost model's cycles per mapping and the rules' pick (loom_<entry>_estimates)
                if lib.estimates_fn is not None:
                    lib.mode = "estimates"
                    try:
                        st["loom"]()
                        est = lib.last
                    finally:
                        lib.mode = None
                by_mapping.append((case.name, shape, time_rounds(per, reps), lib.mappings, est))
            flops = case.flops(shape)
            row = {"case": case.name, "shape": shape, "group": group, "status": status, "errs": errs,
                   "times": times, "flops": flops, "reps": reps, "peers": case.peers, "tuning": tuning}
            rows.append(row)
            line = "%s %s: " % (case.name, "x".join(map(str, shape))) + ", ".join(
                "%s %.4f ms" % (n, t) for n, (t, _) in times.items())
            print(line + " [" + status + "]", flush=True)
            del st
            torch.cuda.empty_cache()

    # ---- report
    md = []
    md.append("# loom fused GEMM kernels vs unfused and fused peers, %s, %s" % (dev.name, datetime.date.today()))
    md.append("")
    md.append("- device: %s (%d SMs); torch %s, CUDA %s, Triton %s" % (
        dev.name, dev.multi_processor_count, torch.__version__, torch.version.cuda, triton.__version__))
    md.append("- date: %s UTC" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"))
    md.append("- command: `%s`" % (args.command or " ".join(sys.argv)))
    md.append("- method: bench/fused_bench.py docstring: same inputs for all methods, CUDA events, warm-up, "
              "two alternating rounds behind a sleep kernel, median; ratio = peer time / loom time (> 1: loom faster); "
              "TFLOP/s counts GEMM flops (2·M·N·K per product); rel err vs an fp32 reference (< 1e-2)")
    md.append("- seed %d%s" % (args.seed, (", sweep: %d shapes, dimensions multiples of 8 in [256, 8192]" % len(sweep))
                                if sweep else ""))
    for n in notes:
        md.append("- " + n)
    md.append("")
    summaries = []
    for case in CASES:
        crow = [r for r in rows if r["case"] == case.name]
        if not crow:
            continue
        md.append("## %s" % case.name)
        md.append("")
        tuned = any(r.get("tuning") for r in crow)
        head = "| shape (MxNxK) | group | loom ms | loom TFLOP/s | " + " | ".join(
            "%s ms | %s / loom" % (p, p) for p in case.peers) + (
            " | loom tuned ms | mapping: pick -> tuned (tune ms) | " + " | ".join("%s / loom tuned" % p for p in case.peers)
            if tuned else "") + " | max rel err | spread loom | status |"
        md.append(head)
        md.append("|" + "---|" * (head.count("|") - 1))
        ratios = {p: {"listed": [], "sweep": []} for p in case.peers}
        tratios = {p: {"listed": [], "sweep": []} for p in case.peers}
        for r in crow:
            shape = "x".join(map(str, r["shape"]))
            if "times" not in r:
                md.append("| %s | %s | | | %s | | | %s |" % (shape, r["group"], " | ".join("" for _ in case.peers * 2),
                                                          r["status"]))
                continue
            t = r["times"]
            lt = t.get("loom", (None, None))[0]
            cells = [shape, r["group"], fmt(lt, "%.4f"), fmt(r["flops"] / lt / 1e9 if lt else None)]
            for p in case.peers:
                pt = t[p][0]
                ratio = pt / lt if lt else None
                if ratio:
                    ratios[p][r["group"]].append(ratio)
                cells += [fmt(pt, "%.4f"), fmt(ratio, "%.3f")]
            if tuned:
                tu = r.get("tuning")
                tt = t.get("loom tuned", (None, None))[0]
                cells += [fmt(tt, "%.4f"), "m%d -> m%d (%.0f)" % (tu["rule"], tu["tuned"], tu["tune_ms"]) if tu else ""]
                for p in case.peers:
                    ratio = t[p][0] / tt if tt else None
                    if ratio:
                        tratios[p][r["group"]].append(ratio)
                    cells.append(fmt(ratio, "%.3f"))
            cells += ["%.1e" % max(r["errs"].values()), fmt(100 * t["loom"][1] / lt if lt else None, "%.1f%%"),
                      r["status"]]
            md.append("| " + " | ".join(cells) + " |")
        md.append("")
        for p in case.peers:
            for g in ("listed", "sweep"):
                xs = ratios[p][g]
                if xs:
                    s = "- %s, %s vs %s: geomean %.3f, min %.3f, max %.3f over %d shapes" % (
                        case.name, g, p, geomean(xs), min(xs), max(xs), len(xs))
                    md.append(s)
                    summaries.append(s)
                xs = tratios[p][g]
                if xs:
                    s = "- %s, %s vs %s, loom tuned: geomean %.3f, min %.3f, max %.3f over %d shapes" % (
                        case.name, g, p, geomean(xs), min(xs), max(xs), len(xs))
                    md.append(s)
                    summaries.append(s)
        md.append("")
    if by_mapping:
        md.append("## loom's mappings by index (ms; `pick` = what loom_<entry>() chose; n/a: the mapping refused the shape)")
        md.append("")
        for name in dict.fromkeys(n for n, _, _, _, _ in by_mapping):
            count = max(c for n, _, _, c, _ in by_mapping if n == name)
            head = "| %s | pick | " % name + " | ".join("m%d" % m for m in range(count)) + " | best |"
            md += [head, "|" + "---|" * (count + 3)]
            for n, shape, t, _, _ in by_mapping:
                if n != name:
                    continue
                best = min((k for k in t if k != "pick"), key=lambda k: t[k][0])
                md.append("| %s | %.4f | " % ("x".join(map(str, shape)), t["pick"][0]) + " | ".join(
                    fmt(t["m%d" % m][0] if "m%d" % m in t else None, "%.4f") for m in range(count)) + " | %s |" % best)
            md.append("")
            # The cost model's view of the same calls (loom_<entry>_estimates): thousands of cycles per
            # mapping (0: not weighed) and the mapping its rules pick, to set against the times above.
            if any(e is not None and n == name for n, _, _, _, e in by_mapping):
                md.append("Estimates of the same calls (loom_<entry>_estimates: the cost model's thousands of cycles; `rule` = "
                          "the mapping its rules pick, before tuning):")
                md.append("")
                md += ["| %s | rule | " % name + " | ".join("m%d" % m for m in range(count)) + " |", "|" + "---|" * (count + 2)]
                for n, shape, _, _, e in by_mapping:
                    if n != name or e is None:
                        continue
                    md.append("| %s | m%d | " % ("x".join(map(str, shape)), e[0]) + " | ".join(
                        "%.1f" % (c / 1000.0) for c in e[1][:count]) + " |")
                md.append("")
    if kernel_notes:
        md.append("## Kernels launched per call (torch.profiler, first shape)")
        md.append("")
        md += ["- " + k for k in kernel_notes]
        md.append("")
    text = "\n".join(md) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print("\n".join(summaries))
    print("fused_bench: wrote %s" % args.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
