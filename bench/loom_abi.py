"""loom's C ABI for the Python benchmarks (ctypes), and the timing helpers they share.

The structs mirror runtime/loom/abi.h (LOOM_ABI_VERSION 1) exactly; the asserts below check the
layout. A generated artifact is compiled into a shared library (bench/attention.sh, bench/fused.sh)
and loaded with `LoomLib(path, entry, argtypes)`.
"""
import ctypes
import os
import statistics

import torch

LOOM_MAX_RANK = 5
LOOM_BF16 = 1
LOOM_F32 = 3
LOOM_ERRORS = {0: "success", 1: "NULL", 2: "RANK", 3: "DTYPE", 4: "SHAPE", 5: "ALIGN", 6: "STRIDE",
               7: "TENSOR_MAP", 8: "LAUNCH", 9: "SMEM", 10: "DEVICE", 11: "MAPPING"}
DTYPES = {torch.bfloat16: LOOM_BF16, torch.float32: LOOM_F32}


class LoomTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("rank", ctypes.c_int32),
                ("dtype", ctypes.c_int32),
                ("shape", ctypes.c_int64 * LOOM_MAX_RANK),
                ("stride", ctypes.c_int64 * LOOM_MAX_RANK)]


class LoomArgInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("kind", ctypes.c_int),
                ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int),
                ("dims", ctypes.c_char_p * LOOM_MAX_RANK),
                ("align_bytes", ctypes.c_int64),
                ("privilege", ctypes.c_int)]


class LoomKernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("num_args", ctypes.c_int),
                ("args", ctypes.POINTER(LoomArgInfo)),
                ("smem_bytes", ctypes.c_int64),
                ("threads_per_block", ctypes.c_int)]


# The C layout (checked against abi.h with offsetof on x86-64): 96 bytes, shape at 16, stride at 56.
assert ctypes.sizeof(LoomTensor) == 96 and LoomTensor.shape.offset == 16 and LoomTensor.stride.offset == 56
assert ctypes.sizeof(LoomArgInfo) == 80 and ctypes.sizeof(LoomKernelInfo) == 40


def loom_tensor(t, shape=None, stride=None):
    """A loom_tensor over torch tensor t's memory; shape and strides (in elements) default to t's own."""
    shape = tuple(t.shape) if shape is None else shape
    stride = tuple(t.stride()) if stride is None else stride
    d = LoomTensor()
    d.data = t.data_ptr()
    d.rank = len(shape)
    d.dtype = DTYPES[t.dtype]
    for i in range(LOOM_MAX_RANK):
        d.shape[i] = shape[i] if i < len(shape) else 0
        d.stride[i] = stride[i] if i < len(stride) else 0
    return d


class LoomLib:
    """One generated artifact: `loom_<entry>(args..., stream)` and `loom_<entry>_info()` from a shared library.
    argtypes: the ctypes types of the arguments before the stream (LoomTensor, ctypes.c_float, ...)."""

    def __init__(self, path, entry, argtypes):
        self.path = path
        self.lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
        self.fn = getattr(self.lib, "loom_" + entry)
        self.fn.restype = ctypes.c_int
        self.fn.argtypes = list(argtypes) + [ctypes.c_void_p]
        info_fn = getattr(self.lib, "loom_%s_info" % entry)
        info_fn.restype = ctypes.POINTER(LoomKernelInfo)
        info_fn.argtypes = []
        info = info_fn().contents
        # loom_<entry>_mapping(m, args..., stream) runs mapping m instead of the pick (force_mapping)
        self.mapping_fn = getattr(self.lib, "loom_%s_mapping" % entry)
        self.mapping_fn.restype = ctypes.c_int
        self.mapping_fn.argtypes = [ctypes.c_int] + list(argtypes) + [ctypes.c_void_p]
        count_fn = getattr(self.lib, "loom_%s_mappings" % entry)
        count_fn.restype = ctypes.c_int
        count_fn.argtypes = []
        self.mappings = count_fn()
        self.force_mapping = None
        # mode "pick": the call asks loom_<entry>_pick (result in self.last); "tune": loom_<entry>_tune
        self.pick_fn = getattr(self.lib, "loom_%s_pick" % entry)
        self.pick_fn.restype = ctypes.c_int
        self.pick_fn.argtypes = list(argtypes) + [ctypes.c_void_p]
        self.tune_fn = getattr(self.lib, "loom_%s_tune" % entry, None)
        if self.tune_fn is not None:
            self.tune_fn.restype = ctypes.c_int
            self.tune_fn.argtypes = list(argtypes) + [ctypes.c_void_p]
        # mode "estimates": the call asks loom_<entry>_estimates; self.last = (the rules' pick, [cycles per mapping])
        self.estimates_fn = getattr(self.lib, "loom_%s_estimates" % entry, None)
        if self.estimates_fn is not None:
            self.estimates_fn.restype = ctypes.c_int
            self.estimates_fn.argtypes = [ctypes.POINTER(ctypes.c_double)] + list(argtypes) + [ctypes.c_void_p]
        self.mode = None
        self.last = None
        self.describe = "%s (%s): %d threads/block, %d B dynamic smem" % (
            os.path.basename(path), info.name.decode() if info.name else "?", info.threads_per_block,
            info.smem_bytes)

    def __call__(self, *args):
        """Calls the entry (or mapping force_mapping) on torch's current stream; raises on a LOOM_ERR_* status."""
        stream = torch.cuda.current_stream().cuda_stream
        if self.mode == "pick":
            self.last = self.pick_fn(*args, stream)
            return
        if self.mode == "estimates":
            if self.estimates_fn is None:
                raise RuntimeError("%s has no loom_<entry>_estimates (generated before it existed)" % self.path)
            cycles = (ctypes.c_double * self.mappings)()
            pick = self.estimates_fn(cycles, *args, stream)
            self.last = (pick, list(cycles))
            return
        if self.mode == "tune":
            if self.tune_fn is None:
                raise RuntimeError("%s has no loom_<entry>_tune (generated before tuning existed)" % self.path)
            rc = self.tune_fn(*args, stream)
        elif self.force_mapping is None:
            rc = self.fn(*args, stream)
        else:
            rc = self.mapping_fn(self.force_mapping, *args, stream)
        if rc != 0:
            raise RuntimeError("%s returned %d (LOOM_ERR_%s)" % (self.path, rc, LOOM_ERRORS.get(rc, "?")))


def rel_err(x, ref):
    """Relative Frobenius error of x against ref (inf when x has a NaN or an infinity)."""
    x = x.float()
    ref = ref.float()
    if not torch.isfinite(x).all():
        return float("inf")
    return (torch.linalg.vector_norm(x - ref) / torch.linalg.vector_norm(ref)).item()


def time_rounds(methods, reps, rounds=2):
    """methods: {name: callable}. Returns {name: (median_ms, spread_ms)} over `rounds` alternating rounds:
    per round and method `reps` launches between CUDA events, enqueued behind torch.cuda._sleep so that
    the GPU runs them back to back; the median over all rounds' samples, and the spread = the difference
    of the rounds' medians (noise)."""
    samples = {n: [] for n in methods}
    medians = {n: [] for n in methods}
    for _ in range(rounds):
        for name, fn in methods.items():
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            torch.cuda.synchronize()
            torch.cuda._sleep(50_000_000)  # keeps the GPU busy (~30 ms) while the launches are enqueued
            for i in range(reps):
                starts[i].record()
                fn()
                ends[i].record()
            torch.cuda.synchronize()
            t = [s.elapsed_time(e) for s, e in zip(starts, ends)]
            samples[name] += t
            medians[name].append(statistics.median(t))
    return {n: (statistics.median(samples[n]), max(medians[n]) - min(medians[n])) for n in methods}


def fmt(x, spec="%.1f"):
    return "n/a" if x is None else spec % x
