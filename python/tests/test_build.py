"""Cache keys, loom.load's refusals, the package's installability, and — where PyTorch and nvcc
are there — a real build of examples/gemm's operator, checked on CPU and meta tensors (no GPU)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import loom
from loom import _build

from conftest import ROOT, torch_or_skip


def key(files, runtime=None, torch="2.11.0", cuda="13.0", flags=("-O2",)):
    return loom.cache_key(files, runtime or {"loom/abi.h": b"abi"}, torch, cuda, list(flags))


def test_cache_key_covers_every_input():
    base = {"gemm.cu": b"kernel", "gemm.h": b"header", "gemm_torch.cpp": b"op"}
    k = key(base)
    assert k == key(dict(base)), "deterministic"
    assert k != key({**base, "gemm.cu": b"kernel2"})
    assert k != key({**base, "extra.h": b""})
    assert k != key(base, runtime={"loom/abi.h": b"abi2"})
    assert k != key(base, torch="2.12.0")
    assert k != key(base, cuda=None)
    assert k != key(base, flags=("-O3",))
    # Names and contents cannot trade places.
    assert key({"a": b"bc"}) != key({"ab": b"c"})


def test_load_refuses_a_directory_without_an_artifact(tmp_path):
    with pytest.raises(loom.LoomError, match="no loom PyTorch artifact"):
        loom.load(tmp_path)
    with pytest.raises(loom.LoomError, match="not a directory"):
        loom.load(tmp_path / "missing")


def test_manifest_must_be_complete(tmp_path):
    (tmp_path / _build.MANIFEST).write_text('{"entry": "gemm"}')
    assert _build._read_manifest(tmp_path) is None
    (tmp_path / _build.MANIFEST).write_text("not json")
    assert _build._read_manifest(tmp_path) is None


def test_pip_installs_the_package(tmp_path):
    pytest.importorskip("setuptools", reason="pip's build needs setuptools in this environment")
    pytest.importorskip("wheel", reason="pip's build needs wheel in this environment")
    src = tmp_path / "src"  # a copy: the build leaves its files beside the sources
    shutil.copytree(ROOT / "python", src, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                           "--target", str(tmp_path / "site"), str(src)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, proc.stdout
    installed = tmp_path / "site" / "loom"
    assert (installed / "__init__.py").is_file() and (installed / "_build.py").is_file()
    out = subprocess.run([sys.executable, "-c", "import loom; print(loom.compile.__module__)"], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "site")}, stdout=subprocess.PIPE, text=True)
    assert out.stdout.strip() == "loom._build"


# ---- with PyTorch: a real build (nvcc and the PyTorch headers), checked without a GPU ---------------

@pytest.fixture(scope="module")
def gemm_op(tmp_path_factory):
    torch = torch_or_skip()
    from torch.utils.cpp_extension import CUDA_HOME
    if not CUDA_HOME:
        pytest.skip("torch.utils.cpp_extension finds no CUDA toolkit (CUDA_HOME) to build the kernel with")
    binary = os.environ.get("LOOM") or shutil.which("loom")
    if not binary:
        pytest.skip("no loom binary: set LOOM")
    cache = tmp_path_factory.mktemp("cache")
    ext = loom.compile(ROOT / "examples" / "gemm" / "gemm.loom", loom=binary, cache_dir=cache)
    return torch, ext, cache, binary


def test_compile_builds_loads_and_caches(gemm_op):
    torch, ext, cache, binary = gemm_op
    assert ext.entry == "gemm" and ext.library.is_file()
    assert ext.op is torch.ops.loom.gemm
    # The second compile is a cache hit: the same directory, nothing rebuilt.
    mtime = ext.library.stat().st_mtime_ns
    again = loom.compile(ROOT / "examples" / "gemm" / "gemm.loom", loom=binary, cache_dir=cache)
    assert again.directory == ext.directory and again.library.stat().st_mtime_ns == mtime
    # loom.load of the built directory loads the same operator.
    assert loom.load(ext.directory).entry == "gemm"


def test_meta_kernel_gives_shapes_and_padded_strides(gemm_op):
    torch = gemm_op[0]
    A = torch.empty(129, 64, dtype=torch.bfloat16, device="meta")
    B = torch.empty_strided((64, 257), (264, 1), dtype=torch.bfloat16, device="meta")  # rows padded to 16 bytes
    C = torch.ops.loom.gemm(A, B)
    assert C.shape == (129, 257) and C.dtype == torch.bfloat16 and C.device.type == "meta"
    assert C.stride() == (264, 1), "rows padded to 16 bytes"


def test_argument_errors_name_the_argument(gemm_op):
    torch = gemm_op[0]
    meta = dict(device="meta")
    A = torch.empty(128, 64, dtype=torch.bfloat16, **meta)
    with pytest.raises(TypeError, match="argument 'B' must have dtype BFloat16, got Float"):
        torch.ops.loom.gemm(A, torch.empty(64, 128, dtype=torch.float32, **meta))
    with pytest.raises(ValueError, match="argument 'B' must have rank 2"):
        torch.ops.loom.gemm(A, torch.empty(64, dtype=torch.bfloat16, **meta))
    with pytest.raises(ValueError, match="dimension K disagrees: A.shape\\[1\\] = 64 but B.shape\\[0\\] = 65"):
        torch.ops.loom.gemm(A, torch.empty(65, 128, dtype=torch.bfloat16, **meta))
    with pytest.raises(ValueError, match="argument 'A' must be contiguous along dimension 1"):
        torch.ops.loom.gemm(torch.empty(64, 128, dtype=torch.bfloat16, **meta).t(), torch.empty(64, 128, dtype=torch.bfloat16, **meta))
    with pytest.raises(ValueError, match="argument 'out' \\(C\\)"):
        torch.ops.loom.gemm(A, torch.empty(64, 128, dtype=torch.bfloat16, **meta),
                            out=torch.empty(128, 127, dtype=torch.bfloat16, **meta))
    # CPU tensors reach the device check, which names the argument.
    with pytest.raises(ValueError, match="argument 'A' must be a CUDA tensor, got one on cpu"):
        torch.ops.loom.gemm(torch.zeros(128, 64, dtype=torch.bfloat16), torch.zeros(64, 128, dtype=torch.bfloat16))


def test_a_second_build_of_the_same_entry_is_refused(gemm_op, tmp_path):
    torch, ext, cache, binary = gemm_op
    src = (ROOT / "examples" / "gemm" / "gemm.loom").read_text() + "\n// a different program text\n"
    (tmp_path / "gemm.loom").write_text(src)
    with pytest.raises(loom.LoomError, match="already loaded"):
        loom.compile(tmp_path / "gemm.loom", loom=binary, cache_dir=tmp_path / "cache")
