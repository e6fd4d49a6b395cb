"""loom programs as PyTorch operators.

    import loom, torch
    gemm = loom.compile("examples/gemm/gemm.loom")   # torch.ops.loom.gemm, built and loaded
    C = gemm(A, B)

loom.compile(path, **options) runs the `loom` CLI (`loom compile --emit=torch`), builds the
generated extension with torch.utils.cpp_extension, caches the build by a hash of everything that
goes into it, and loads it. loom.load(DIR) loads an artifact built before (the AOT path: build
once, ship the directory with its .so). A program loom refuses raises loom.CompileError, which
carries loom's diagnostics (file, line, column, message, hint, notes). docs/pytorch.md is the
guide; tests in python/tests (pytest) and tests/gpu/torch_ops.py.
"""

from ._cli import CompileError, Diagnostic, LoomError, find_loom, runtime_dir
from ._build import BuildError, Extension, cache_key, compile, load

__all__ = [
    "BuildError",
    "CompileError",
    "Diagnostic",
    "Extension",
    "LoomError",
    "cache_key",
    "compile",
    "find_loom",
    "load",
    "runtime_dir",
]
__version__ = "0.1.0"
