#!/usr/bin/env python3
"""Attention forward: loom's generated FA2 and FA3 kernels against cuDNN, FlashAttention-2 (both through
torch.nn.functional.scaled_dot_product_attention with the backend forced) and a fused Triton kernel
written here, in one process on the same inputs.

bf16 in and out. Total tokens 16384 (B = 16384 / S), S in 512 ... 16384, hidden 2048 (H = 2048 / D),
D in 64 and 128, non-causal and causal. Torch gets q, k, v as [B, H, S, D] contiguous tensors; loom
gets the same memory as Q, V, O: [B*H, S, D] row-major and K as the column-major Kt (shape
{B*H, D, S}, stride {S*D, 1, D}): no copies, and the loom_tensor descriptors are built before the
timed region.

loom is loaded from shared libraries (bench/attention.sh builds them from the generated mha.cu) with
ctypes: --lib fa2=PATH.so, --lib fa3=PATH.so; --lib fa2:causal=PATH.so for a causal artifact (loom
columns of causal rows are "n/a" without one). Any column name works (fa2_opt, say: one more column
"loom fa2_opt"); columns appear in the order of their first --lib. Several libraries may serve one column (one per head
dimension, say): the first that accepts the problem (return code 0) is used. A missing or refused
library gives "n/a" and the peers are still measured.

Correctness: every output is compared with cuDNN's (relative Frobenius error; loom and Triton must be
< 1e-2, else the row is marked FAIL), and cuDNN's own output with an fp32 torch reference on the first
batch-head.
Timing: CUDA events around each launch; per row and method a warm-up, then two rounds (methods
alternating) of --reps launches each, each round enqueued behind torch.cuda._sleep so that the GPU
runs the launches back to back; the reported time is the median over both rounds, and the spread
(noise) is the difference of the two rounds' medians. TFLOP/s = 4 * B * H * S * S * D / t (half of that
when causal). The q, k, v of one row take 3 x 64 MiB, far more than the L2 cache.

Writes a markdown table to --out (default $OUT/attention.md) and prints it.
Usage: python3 bench/attention_bench.py [--lib NAME[:causal]=PATH]... [--nvcc-seconds NAME=S]...
         [--out FILE] [--reps N] [--tokens T] [--only-d D] [--only-s S] [--no-causal] [--seed S] [--command "how it ran"]
Exit status: 0 if every loom output measured agrees with cuDNN; 1 if one does not (or a peer crashed).
"""
import argparse
import ctypes
import datetime
import math
import os
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loom_abi import LOOM_ERRORS, LoomLib, LoomTensor, fmt, loom_tensor, rel_err, time_rounds  # noqa: E402

TOKENS = 16384
HIDDEN = 2048
SEQ_LENS = (512, 1024, 2048, 4096, 8192, 16384)
HEAD_DIMS = (64, 128)
TOLERANCE = 1e-2
LOG2E = 1.4426950408889634

# ------------------------------------------------------------------------------------------------
# loom's C ABI through ctypes (bench/loom_abi.py); entry `mha`.
LOOM_ARGTYPES = [LoomTensor, LoomTensor, LoomTensor, LoomTensor, ctypes.c_float]


class MhaLib(LoomLib):
    """A generated mha artifact serving one column (fa2 / fa3), causal or not."""

    def __init__(self, column, causal, path):
        super().__init__(path, "mha", LOOM_ARGTYPES)
        self.column, self.causal = column, causal


# ------------------------------------------------------------------------------------------------
# Triton: a straightforward FlashAttention-2-style forward. One program per (BLOCK_M query rows, head);
# K/V walked in BLOCK_N tiles with a running max and sum in the exp2 domain; the accumulator is
# rescaled per tile and divided by the sum at the end. Causal: the key tiles strictly below the
# diagonal run without a mask, the ones that cross it with one, the ones above it not at all.

def _config(bm, bn, stages, warps):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=stages, num_warps=warps)


TRITON_CONFIGS = [
    _config(128, 64, 3, 4),
    _config(128, 64, 3, 8),
    _config(128, 128, 2, 8),
    _config(128, 128, 3, 8),
    _config(64, 64, 4, 4),
]


@triton.jit
def _attn_tile(acc, m_i, l_i, q, k_base, v_base, start, offs_m, offs_n0, offs_d, seq_k, stride_kn, stride_vn,
               qk_scale, MASK_KEYS: tl.constexpr, MASK_CAUSAL: tl.constexpr):
    offs_n = start + offs_n0
    if MASK_KEYS:
        kt = tl.load(k_base + offs_n[None, :] * stride_kn + offs_d[:, None], mask=offs_n[None, :] < seq_k, other=0.0)
        v = tl.load(v_base + offs_n[:, None] * stride_vn + offs_d[None, :], mask=offs_n[:, None] < seq_k, other=0.0)
    else:
        kt = tl.load(k_base + offs_n[None, :] * stride_kn + offs_d[:, None])
        v = tl.load(v_base + offs_n[:, None] * stride_vn + offs_d[None, :])
    s = tl.dot(q, kt) * qk_scale  # [BLOCK_M, BLOCK_N], log2 domain
    if MASK_KEYS:
        s = tl.where(offs_n[None, :] < seq_k, s, float("-inf"))
    if MASK_CAUSAL:
        s = tl.where(offs_n[None, :] <= offs_m[:, None], s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1))
    alpha = tl.math.exp2(m_i - m_new)
    p = tl.math.exp2(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    return acc, m_new, l_i


@triton.autotune(configs=TRITON_CONFIGS, key=["seq_q", "seq_k", "HEAD_D", "CAUSAL"])
@triton.heuristics({"EVEN_N": lambda a: a["seq_k"] % a["BLOCK_N"] == 0})
@triton.jit
def _attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, seq_q, seq_k,
              stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn, stride_oh, stride_om,
              HEAD_D: tl.constexpr, CAUSAL: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr):
    pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)  # flattened batch * heads
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n0 = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + head * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < seq_q, other=0.0)
    k_base = k_ptr + head * stride_kh
    v_base = v_ptr + head * stride_vh
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_D], tl.float32)
    if CAUSAL:
        # Tiles entirely left of this block's first row need no mask; those up to its last row do.
        full_end = (pid_m * BLOCK_M) // BLOCK_N * BLOCK_N
        diag_end = tl.minimum((pid_m + 1) * BLOCK_M, seq_k)
        for start in range(0, full_end, BLOCK_N):
            acc, m_i, l_i = _attn_tile(acc, m_i, l_i, q, k_base, v_base, start, offs_m, offs_n0, offs_d, seq_k,
                                       stride_kn, stride_vn, qk_scale, False, False)
        for start in range(full_end, diag_end, BLOCK_N):
            acc, m_i, l_i = _attn_tile(acc, m_i, l_i, q, k_base, v_base, start, offs_m, offs_n0, offs_d, seq_k,
                                       stride_kn, stride_vn, qk_scale, True, True)
    elif EVEN_N:
        for start in range(0, seq_k, BLOCK_N):
            acc, m_i, l_i = _attn_tile(acc, m_i, l_i, q, k_base, v_base, start, offs_m, offs_n0, offs_d, seq_k,
                                       stride_kn, stride_vn, qk_scale, False, False)
    else:
        for start in range(0, seq_k, BLOCK_N):
            acc, m_i, l_i = _attn_tile(acc, m_i, l_i, q, k_base, v_base, start, offs_m, offs_n0, offs_d, seq_k,
                                       stride_kn, stride_vn, qk_scale, True, False)
    acc = acc / l_i[:, None]
    tl.store(o_ptr + head * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(o_ptr.dtype.element_ty),
             mask=offs_m[:, None] < seq_q)


def triton_attention(q, k, v, o, softmax_scale, causal):
    """q, k, v, o: [B, H, S, D] contiguous."""
    B, H, S, D = q.shape
    grid = lambda meta: (triton.cdiv(S, meta["BLOCK_M"]), B * H)
    _attn_fwd[grid](q, k, v, o, softmax_scale * LOG2E, S, S,
                    S * D, D, S * D, D, S * D, D, S * D, D, HEAD_D=D, CAUSAL=causal)


# ------------------------------------------------------------------------------------------------

def label_of(column):
    """The table label of a loom column: fa2 -> "loom FA2", fa3 -> "loom FA3", others "loom NAME"."""
    return {"fa2": "loom FA2", "fa3": "loom FA3"}.get(column, "loom " + column)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", action="append", default=[], help="NAME[:causal]=PATH.so, NAME fa2, fa3 or another column name")
    ap.add_argument("--nvcc-seconds", action="append", default=[], help="NAME=SECONDS (for the table header)")
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "attention.md"))
    ap.add_argument("--reps", type=int, default=30, help="timed launches per round (two rounds)")
    ap.add_argument("--tokens", type=int, default=TOKENS, help="total tokens B*S (default %d)" % TOKENS)
    ap.add_argument("--only-d", type=int, help="one head dimension, also one outside the sweep's 64 and 128 (256)")
    ap.add_argument("--only-s", type=int)
    ap.add_argument("--no-causal", action="store_true")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--command", default="python3 " + " ".join(sys.argv))
    args = ap.parse_args()
    args.reps = max(args.reps, 20)

    libs = {"fa2": {False: [], True: []}, "fa3": {False: [], True: []}}
    notes = []
    for spec in args.lib:
        key, _, path = spec.partition("=")
        column, _, flag = key.partition(":")
        if not column.replace("_", "").isalnum() or not path or flag not in ("", "causal"):
            sys.exit("--lib %s: want NAME[:causal]=PATH (NAME fa2, fa3, fa2_opt, ...)" % spec)
        libs.setdefault(column, {False: [], True: []})
        try:
            lib = MhaLib(column, flag == "causal", path)
            libs[column][flag == "causal"].append(lib)
            notes.append("loom %s%s: %s" % (column, " causal" if flag else "", lib.describe))
        except OSError as e:
            notes.append("loom %s: could not load %s: %s" % (column, path, e))
    nvcc = dict(s.split("=", 1) for s in args.nvcc_seconds)

    dev = torch.cuda.get_device_name()
    torch.manual_seed(args.seed)
    print("attention_bench: %s, torch %s, triton %s, cuDNN %s, seed %d" % (
        dev, torch.__version__, triton.__version__, torch.backends.cudnn.version(), args.seed), flush=True)
    for n in notes:
        print("  " + n)

    rows = []
    failed = False
    loom_cols = [(c, label_of(c)) for c in libs]
    cols = [label for _, label in loom_cols] + ["cuDNN", "FA2 (torch)", "Triton"]
    for causal in ((False,) if args.no_causal else (False, True)):
        for D in ((args.only_d,) if args.only_d else HEAD_DIMS):  # --only-d: any head dimension (256 too)
            for S in SEQ_LENS:
                if args.only_s and S != args.only_s:
                    continue
                if S > args.tokens:
                    continue
                B, H = args.tokens // S, HIDDEN // D
                scale = 1.0 / math.sqrt(D)
                q, k, v = (torch.empty(B, H, S, D, device="cuda", dtype=torch.bfloat16).uniform_(-1, 1)
                           for _ in range(3))
                BH = B * H
                tq = loom_tensor(q, (BH, S, D), (S * D, D, 1))
                tk = loom_tensor(k, (BH, D, S), (S * D, 1, D))  # K's memory as the column-major Kt
                tv = loom_tensor(v, (BH, S, D), (S * D, D, 1))
                outs, methods, status = {}, {}, {}

                def sdpa(backend, out_name):
                    def fn():
                        with sdpa_kernel(backend):
                            outs[out_name] = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                    return fn

                methods["cuDNN"] = sdpa(SDPBackend.CUDNN_ATTENTION, "cuDNN")
                methods["FA2 (torch)"] = sdpa(SDPBackend.FLASH_ATTENTION, "FA2 (torch)")
                o_tri = torch.empty_like(q)
                methods["Triton"] = lambda o_tri=o_tri: triton_attention(q, k, v, o_tri, scale, causal)
                outs["Triton"] = o_tri
                for column, label in loom_cols:
                    cands = libs[column][causal]
                    if not cands:
                        status[label] = "no causal artifact" if causal else "no library"
                        continue
                    o = torch.empty_like(q)
                    o.view(torch.int16).fill_(0x7fc1)  # NaN poison: every element must be written
                    to = loom_tensor(o, (BH, S, D), (S * D, D, 1))
                    stream = torch.cuda.current_stream().cuda_stream
                    rcs = []
                    for lib in cands:
                        rc = lib.fn(to, tq, tk, tv, scale * LOG2E, stream)
                        rcs.append("rc %d (%s)" % (rc, LOOM_ERRORS.get(rc, "?")))
                        if rc == 0:
                            def call(f=lib.fn, to=to, stream=stream):
                                if f(to, tq, tk, tv, scale * LOG2E, stream) != 0:
                                    raise RuntimeError("loom_mha returned nonzero")
                            methods[label] = call
                            outs[label] = o
                            break
                    else:
                        status[label] = ", ".join(rcs)
                # Warm-up (Triton autotunes on its first call), then drop methods that fail.
                for name in list(methods):
                    try:
                        for _ in range(3):
                            methods[name]()
                        torch.cuda.synchronize()
                    except Exception as e:  # a backend that cannot run this case
                        status[name] = "error: %s" % str(e).splitlines()[0][:80]
                        del methods[name]
                        outs.pop(name, None)
                # Correctness: one fresh run each, compared with cuDNN's output.
                for name in methods:
                    if name in outs and name.startswith("loom"):
                        outs[name].view(torch.int16).fill_(0x7fc1)
                    methods[name]()
                torch.cuda.synchronize()
                errs = {}
                ref = outs.get("cuDNN")
                if ref is not None:
                    for name in methods:
                        if name != "cuDNN":
                            errs[name] = rel_err(outs[name], ref)
                    # cuDNN itself against fp32 on the first batch-head.
                    q0, k0, v0 = (t[0, 0].float() for t in (q, k, v))
                    s0 = (q0 @ k0.T) * scale
                    if causal:
                        s0 = s0.masked_fill(torch.ones_like(s0, dtype=torch.bool).triu(1), float("-inf"))
                    errs["cuDNN"] = rel_err(ref[0, 0], torch.softmax(s0, dim=-1) @ v0)
                    del s0
                bad = [n for n in errs if n.startswith("loom") or n == "Triton" if errs[n] >= TOLERANCE]
                if any(n.startswith("loom") for n in bad):
                    failed = True
                times = time_rounds(methods, args.reps)
                flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
                tf = {n: flops / (times[n][0] * 1e-3) / 1e12 for n in times}
                row = {"D": D, "causal": causal, "S": S, "B": B, "H": H, "tf": tf, "times": times, "errs": errs,
                       "status": status, "bad": bad}
                rows.append(row)
                line = "D=%3d causal=%d S=%5d:" % (D, causal, S) + "".join(
                    " %s %s" % (n, fmt(tf.get(n))) for n in cols)
                print(line + ("  FAIL: " + ", ".join("%s err %.2e" % (n, errs[n]) for n in bad) if bad else ""),
                      flush=True)
                del q, k, v, outs, o_tri, methods
                torch.cuda.empty_cache()

    # ---- report --------------------------------------------------------------------------------
    lines = ["# Attention forward: loom vs cuDNN, FlashAttention-2 (torch) and Triton", ""]
    lines.append("- device: %s (%d SMs)" % (dev, torch.cuda.get_device_properties(0).multi_processor_count))
    lines.append("- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    lines.append("- command: `%s`" % args.command)
    lines.append("- torch %s, triton %s, cuDNN %s, CUDA %s; seed %d" % (
        torch.__version__, triton.__version__, torch.backends.cudnn.version(), torch.version.cuda, args.seed))
    lines.append("- bf16, %d tokens (B = %d / S), hidden %d (H = %d / D), softmax scale 1/sqrt(D); TFLOP/s = "
                 "4·B·H·S²·D / t (half when causal); median of 2 × %d CUDA-event-timed launches after warm-up"
                 % (args.tokens, args.tokens, HIDDEN, HIDDEN, args.reps))
    for n in notes:
        lines.append("- " + n)
    for name, secs in sorted(nvcc.items()):
        lines.append("- nvcc compile of %s: %s s" % (name, secs))
    lines.append("- errors: relative Frobenius error against cuDNN's output (cuDNN's own against an fp32 torch "
                 "reference on batch-head 0); loom or Triton >= %.0e is marked FAIL" % TOLERANCE)
    lines.append("")
    lines.append("| D | causal | S | B×H | " + " | ".join(c + " TFLOP/s" for c in cols) +
                 " | " + " | ".join(label[5:] + "/cuDNN" for _, label in loom_cols) + " | max spread | errors |")
    lines.append("|---" * (4 + len(cols) + len(loom_cols) + 2) + "|")
    for r in rows:
        tf = r["tf"]
        cells = [str(r["D"]), "yes" if r["causal"] else "no", str(r["S"]), "%d×%d" % (r["B"], r["H"])]
        for c in cols:
            cells.append(fmt(tf.get(c)) if c in tf else "n/a" + (" (%s)" % r["status"][c] if c in r["status"] else ""))
        for c in (label for _, label in loom_cols):
            cells.append("%.2f" % (tf[c] / tf["cuDNN"]) if c in tf and "cuDNN" in tf else "n/a")
        spreads = [r["times"][n][1] / r["times"][n][0] for n in r["times"]]
        cells.append("%.1f%%" % (100 * max(spreads)) if spreads else "n/a")
        errs = ", ".join("%s %.1e" % (n, e) for n, e in r["errs"].items())
        if r["bad"]:
            errs += " **FAIL: %s**" % ", ".join(r["bad"])
        cells.append(errs)
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    # The acceptance's summary: geometric mean of loom / cuDNN over S >= 1024, per column, D and causal.
    for _, label in loom_cols:
        for causal in (False, True):
            for D in sorted({r["D"] for r in rows}):
                rs = [r["tf"][label] / r["tf"]["cuDNN"] for r in rows
                      if r["D"] == D and r["causal"] == causal and r["S"] >= 1024 and label in r["tf"] and "cuDNN" in r["tf"]]
                if rs:
                    lines.append("- %s / cuDNN, D = %d, %s: geomean over S >= 1k %.3f, min %.2f (%d points)" % (
                        label, D, "causal" if causal else "non-causal",
                        math.exp(sum(math.log(x) for x in rs) / len(rs)), min(rs), len(rs)))
    lines.append("")
    lines.append("loom vs cuDNN: %s" % ("FAIL (a loom output disagrees with cuDNN)" if failed else
                                         "every loom output measured agrees with cuDNN"))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print()
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
