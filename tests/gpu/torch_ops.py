"""GPU test of the PyTorch operators (loom compile --emit=torch; docs/pytorch.md), run by
tests/gpu/torch_ops.sh. For gemm, batched_gemm and dual_gemm, each built with loom.load from its
generated directory: the operator agrees with a torch reference on fresh random inputs (seed
printed), its .out form too, it runs on a non-default stream behind work queued there, bad
arguments raise the documented exception naming the argument, and it runs inside
torch.compile(fullgraph=True) (also after a shape change). Prints PASS/FAIL per check; exit 1 if
any failed.

    python3 tests/gpu/torch_ops.py --gen build-gpu/gen --work /tmp/w [--seed S]
"""

import argparse
import math
import os
import re
import shutil
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402

import loom  # noqa: E402

failures = []


def check(name, fn):
    t0 = time.time()
    try:
        fn()
        print(f"PASS {name} ({time.time() - t0:.1f}s)", flush=True)
    except Exception:
        failures.append(name)
        print(f"FAIL {name}:\n{traceback.format_exc()}", flush=True)


def padded(*shape, dtype=torch.bfloat16, scale=1.0):
    """A random tensor whose rows are padded to 16 bytes (a view), as the kernels require."""
    inner = shape[-1]
    storage = (torch.randn(*shape[:-1], (inner + 7) // 8 * 8, device="cuda") * scale).to(dtype)
    return storage[..., :inner]


def misaligned_copy(t):
    """t's values in a tensor of the same shape and (padded) strides whose base is 2 bytes off."""
    inner = (t.shape[-1] + 7) // 8 * 8
    numel = math.prod(t.shape[:-1]) * inner
    buf = torch.empty(numel + 8, dtype=t.dtype, device=t.device)
    return buf[1:1 + numel].view(*t.shape[:-1], inner)[..., :t.shape[-1]].copy_(t)


def filled_like(t, value):
    """A tensor with t's shape, strides (the padded rows of a loom output) and dtype, filled with
    value. torch.full_like would pack a padded tensor's rows, misaligning them."""
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device).fill_(value)


def rel_err(got, ref):
    got, ref = got.float(), ref.float()
    return ((got - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def close(got, ref, what, tol=1e-2):
    assert not torch.isnan(got.float()).any(), f"{what}: NaN in the output"
    e = rel_err(got, ref)
    assert e < tol, f"{what}: relative Frobenius error {e:.3e} >= {tol}"


# ---- the three operators: inputs and references ---------------------------------------------------

def gemm_inputs(M, N, K):
    return (padded(M, K, scale=0.5), padded(K, N, scale=0.5))


def gemm_ref(A, B):
    return A.float() @ B.float()


def bgemm_inputs(Bt, M, N, K):
    return (padded(Bt, M, K, scale=0.5), padded(Bt, K, N, scale=0.5))


def bgemm_ref(A, B):
    return torch.bmm(A.float(), B.float())


def dual_inputs(M, N, K):
    return (padded(M, K, scale=0.5), padded(K, N, scale=0.5), padded(K, N, scale=0.5))


def dual_ref(A, B1, B2):
    return torch.nn.functional.silu(A.float() @ B1.float()) * (A.float() @ B2.float())


OPS = {
    "gemm": (gemm_inputs, gemm_ref, [(256, 256, 64), (129, 257, 65), (1, 4096, 4096), (2048, 2048, 2048)]),
    "batched_gemm": (bgemm_inputs, bgemm_ref, [(4, 129, 257, 65), (8, 1024, 1024, 1024)]),
    "dual_gemm": (dual_inputs, dual_ref, [(129, 257, 65), (4096, 4096, 4096)]),
}


def test_operator(name, ext):
    make, ref, shapes = OPS[name]
    op = ext.op

    def agrees():
        for shape in shapes:
            args = make(*shape)
            out = op(*args)
            torch.cuda.synchronize()
            close(out, ref(*args), f"{name}{shape}")
    check(f"{name}: agrees with torch on fresh inputs", agrees)

    def out_form():
        args = make(*shapes[1])
        expected = op(*args)
        out = filled_like(expected, float("nan"))
        op.out(*args, out=out)  # the overload itself
        torch.cuda.synchronize()
        close(out, ref(*args), f"{name}.out")
        out.fill_(float("nan"))
        op(*args, out=out)  # the overload packet picks .out for out=
        torch.cuda.synchronize()
        close(out, ref(*args), f"{name}(..., out=)")
    check(f"{name}: out= form", out_form)

    def stream():
        # On a non-default stream, behind a sleep and a copy into the first input queued there:
        # the operator must see the copied values, so it must run on that stream after them.
        args = list(make(*shapes[1]))
        fresh = make(*shapes[1])[0]
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            torch.cuda._sleep(100_000_000)  # ~50 ms of GPU time
            args[0].copy_(fresh)
            out = op(*args)
        s.synchronize()
        close(out, ref(*args), f"{name} on a side stream")
    check(f"{name}: runs on the current (non-default) stream", stream)

    def bad_arguments():
        args = make(*shapes[1])

        def raises(exc, pattern, *a):
            try:
                op(*a)
            except exc as e:
                assert re.search(pattern, str(e)), f"{exc.__name__} {str(e)!r} does not match {pattern!r}"
                return
            except Exception as e:
                raise AssertionError(f"expected {exc.__name__} matching {pattern!r}, got {type(e).__name__}: {e}")
            raise AssertionError(f"expected {exc.__name__} matching {pattern!r}, nothing raised")

        raises(TypeError, r"argument 'A' must have dtype BFloat16, got Float", args[0].float(), *args[1:])
        raises(ValueError, r"argument 'A' must be a CUDA tensor", args[0].cpu(), *args[1:])
        raises(ValueError, r"argument 'A' must have rank", args[0][0], *args[1:])
        raises(ValueError, r"dimension K disagrees", args[0][..., :-1], *args[1:])
        raises(ValueError, r"argument 'A' (must be contiguous|has stride)", args[0].transpose(-1, -2), *args[1:])
        raises(ValueError, r"argument 'A' starts at an address that is not a multiple of 16 bytes",
               misaligned_copy(args[0]), *args[1:])
        # An output whose rows are packed (torch.empty of the shape: a stride of 257 bf16) is refused
        # with the stride named (this message once crashed the process: runtime/loom/torch.h, show()).
        packed = torch.empty(op(*args).shape, dtype=torch.bfloat16, device="cuda")
        if packed.shape[-1] % 8:
            try:
                op(*args, out=packed)
                raise AssertionError("an output with unaligned rows was accepted")
            except ValueError as e:
                assert re.search(r"argument 'out' \(\w+\) has stride \d+ along dimension", str(e)), str(e)
        # Nothing was written by a refused call: a refused .out leaves the output as it was.
        out = filled_like(op(*args), 7.0)
        torch.cuda.synchronize()
        try:
            op(args[0].float(), *args[1:], out=out)
        except TypeError:
            pass
        torch.cuda.synchronize()
        assert bool((out == 7.0).all()), "a refused call wrote its output"
    check(f"{name}: bad arguments raise the documented exceptions", bad_arguments)

    def compiled():
        def f(*a):
            return op(*a).float() * 2 + 1
        g = torch.compile(f, fullgraph=True)
        for shape in shapes[:2]:
            args = make(*shape)
            got = g(*args)
            torch.cuda.synchronize()
            close(got, ref(*args) * 2 + 1, f"torch.compile {name}{shape}")
    check(f"{name}: torch.compile(fullgraph=True)", compiled)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gen", default=os.path.join(ROOT, "build-gpu", "gen"))
    p.add_argument("--work", default="/tmp/loom-torch-ops")
    p.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name()}, seed {a.seed}")
    for name in OPS:
        src = os.path.join(a.gen, name)
        if not os.path.isfile(os.path.join(src, f"{name}_torch.cpp")):
            failures.append(name)
            print(f"FAIL {name}: no {src}/{name}_torch.cpp (run `bash bench/run.sh --prepare` on the development machine)")
            continue
        work = os.path.join(a.work, name)
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(src, work)
        t0 = time.time()
        try:
            ext = loom.load(work, runtime=os.path.join(ROOT, "runtime"))
        except Exception:
            failures.append(name)
            print(f"FAIL {name}: loom.load (build):\n{traceback.format_exc()}")
            continue
        print(f"PASS {name}: built and loaded ({time.time() - t0:.0f}s)")
        test_operator(name, ext)
    print(f"{'FAILED: ' + ', '.join(failures) if failures else 'all torch operator checks passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
