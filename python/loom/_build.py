"""Building and loading the PyTorch operator of a loom program.

A build directory holds the artifact (<entry>.cu, <entry>.h, <entry>_torch.cpp), the compiled
extension and a manifest, loom_torch.json: {"entry", "library", "key", "torch"}. loom.compile
builds into a cache directory named after a content hash (cache_key); loom.load loads a directory
built before, or builds it in place from its sources.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Dict, Iterable, Mapping, Optional, Sequence

from ._cli import LoomError, emit_torch, runtime_dir

MANIFEST = "loom_torch.json"

# nvcc flags for <entry>.cu. torch.utils.cpp_extension defines __CUDA_NO_HALF_OPERATORS__ and its
# relatives for every .cu it compiles; loom's runtime converts bf16/f16 with the operators those
# macros remove, so they are undefined again here. An explicit -gencode keeps cpp_extension from
# adding its own architectures (the kernels need sm_90a: wgmma, setmaxnreg).
NVCC_FLAGS = [
    "-O3",
    "-gencode=arch=compute_90a,code=sm_90a",
    "-U__CUDA_NO_HALF_OPERATORS__",
    "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "-U__CUDA_NO_HALF2_OPERATORS__",
]
CXX_FLAGS = ["-O2"]

# Which build directory an entry's operator was loaded from in this process: torch.ops.loom.<entry>
# can be registered once per process.
_loaded: Dict[str, Path] = {}


class BuildError(LoomError):
    """The extension did not build or load (the compiler's or torch's message is in it)."""


class Extension:
    """A loaded operator: calling it calls torch.ops.loom.<entry>; `.out(...)` is the .out form."""

    def __init__(self, entry: str, library: Path, directory: Path):
        self.entry = entry
        self.library = Path(library)
        self.directory = Path(directory)

    @property
    def op(self):
        import torch

        return getattr(torch.ops.loom, self.entry)

    def __call__(self, *args, **kwargs):
        return self.op(*args, **kwargs)

    def out(self, *args, **kwargs):
        return self.op.out(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<loom.Extension torch.ops.loom.{self.entry} from {self.library}>"


def cache_key(files: Mapping[str, bytes], runtime: Mapping[str, bytes], torch_version: str, cuda_version: Optional[str],
              flags: Sequence[str]) -> str:
    """sha256 of everything a build depends on: the generated files, loom's runtime headers, the
    torch and CUDA versions and the compiler flags. A new loom that generates the same files reuses
    the build; any change to what is compiled, or how, does not."""
    h = hashlib.sha256()

    def put(tag: str, data: bytes) -> None:
        h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    for name in sorted(files):
        put("file:" + name, files[name])
    for name in sorted(runtime):
        put("runtime:" + name, runtime[name])
    put("torch", torch_version.encode())
    put("cuda", (cuda_version or "none").encode())
    put("flags", "\0".join(flags).encode())
    return h.hexdigest()


def runtime_files(runtime: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(runtime)): p.read_bytes() for p in sorted((runtime / "loom").rglob("*")) if p.is_file()}


def default_cache_dir() -> Path:
    if os.environ.get("LOOM_CACHE_DIR"):
        return Path(os.environ["LOOM_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "loom" / "torch"


def _import_torch():
    try:
        import torch
        import torch.utils.cpp_extension  # noqa: F401
    except Exception as e:  # ImportError, or a torch whose own libraries are missing
        raise LoomError(f"building or loading a loom operator needs PyTorch, and `import torch` failed: {e}") from e
    return torch


def _read_manifest(directory: Path) -> Optional[dict]:
    try:
        m = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return m if isinstance(m, dict) and {"entry", "library", "key", "torch"} <= m.keys() else None


def _check_free(entry: str, directory: Path) -> bool:
    """Whether `entry` is already loaded from `directory`; raises when it is loaded from another."""
    if entry not in _loaded:
        return False
    if _loaded[entry] != directory.resolve():
        raise LoomError(
            f"torch.ops.loom.{entry} is already loaded from {_loaded[entry]}; an operator can be registered once per "
            f"process, so {directory.resolve()} cannot be loaded beside it (start a new process to use the other build)")
    return True


def _load_library(entry: str, library: Path, directory: Path) -> Extension:
    torch = _import_torch()
    directory = directory.resolve()
    if _check_free(entry, directory):
        return Extension(entry, library, directory)
    try:
        torch.ops.load_library(str(library))
    except Exception as e:
        raise BuildError(f"loading {library} failed: {e}\nhint: a build for another torch or CUDA version? "
                         f"delete {directory / MANIFEST} to rebuild") from e
    _loaded[entry] = directory
    return Extension(entry, library, directory)


def _build(directory: Path, entry: str, runtime: Path, key: str, verbose: bool, extra_cflags: Iterable[str],
           extra_cuda_cflags: Iterable[str]) -> Extension:
    torch = _import_torch()
    from torch.utils import cpp_extension

    if _check_free(entry, directory):
        raise LoomError(f"torch.ops.loom.{entry} is already loaded in this process from an earlier build in {directory}; "
                        "start a new process to load the rebuilt operator")
    sources = [str(directory / f"{entry}_torch.cpp"), str(directory / f"{entry}.cu")]
    for s in sources:
        if not os.path.isfile(s):
            raise LoomError(f"{s} is missing: {directory} is not a complete `loom compile --emit=torch` artifact")
    try:
        # is_python_module=False: the library registers torch.ops.loom.<entry> when loaded, and
        # load() returns its path after torch.ops.load_library.
        library = cpp_extension.load(
            name=f"{entry}_torch",
            sources=sources,
            extra_include_paths=[str(directory), str(runtime)],
            extra_cflags=CXX_FLAGS + list(extra_cflags),
            extra_cuda_cflags=NVCC_FLAGS + list(extra_cuda_cflags),
            build_directory=str(directory),
            is_python_module=False,
            verbose=verbose,
        )
    except Exception as e:
        raise BuildError(f"building the PyTorch operator of `{entry}` in {directory} failed:\n{e}") from e
    library = Path(library) if library else directory / f"{entry}_torch.so"
    _loaded[entry] = directory.resolve()
    (directory / MANIFEST).write_text(json.dumps(
        {"entry": entry, "library": library.name, "key": key, "torch": torch.__version__}, indent=2) + "\n")
    return Extension(entry, library, directory)


def compile(path: os.PathLike, *, loom: Optional[str] = None, output_dir: Optional[os.PathLike] = None,
            cache_dir: Optional[os.PathLike] = None, runtime: Optional[os.PathLike] = None, verbose: bool = False,
            extra_cflags: Sequence[str] = (), extra_cuda_cflags: Sequence[str] = ()) -> Extension:
    """Compiles the loom program at `path` into torch.ops.loom.<entry> and loads it.

    loom: the loom binary (default $LOOM, else `loom` on PATH). output_dir: build there (the AOT
    path: ship the directory, loom.load it elsewhere) instead of the cache, cache_dir (default
    $LOOM_CACHE_DIR, else ~/.cache/loom/torch). runtime: loom's runtime/ (default $LOOM_RUNTIME,
    else `loom --runtime-dir`). verbose: show the compiler commands. Raises CompileError with loom's
    diagnostics when loom refuses the program, BuildError when the extension does not build.
    """
    with tempfile.TemporaryDirectory(prefix="loom-") as tmp:
        entry = emit_torch(path, tmp, loom)  # loom's diagnostics come first, torch or not
        files = {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir()) if p.is_file()}
    torch = _import_torch()
    rt = Path(runtime) if runtime else runtime_dir(loom)
    flags = CXX_FLAGS + list(extra_cflags) + ["--"] + NVCC_FLAGS + list(extra_cuda_cflags)
    key = cache_key(files, runtime_files(rt), torch.__version__, torch.version.cuda, flags)
    if output_dir is not None:
        target = Path(output_dir)
    else:
        target = (Path(cache_dir) if cache_dir else default_cache_dir()) / f"{entry}-{key[:16]}"
    m = _read_manifest(target)
    if m and m["key"] == key and (target / m["library"]).is_file():
        return _load_library(entry, target / m["library"], target)  # built before: the cache hit
    target.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (target / name).write_bytes(data)
    return _build(target, entry, rt, key, verbose, extra_cflags, extra_cuda_cflags)


def load(directory: os.PathLike, *, runtime: Optional[os.PathLike] = None, loom: Optional[str] = None,
         verbose: bool = False) -> Extension:
    """Loads the operator in `directory`: its built library when the manifest names one (built by
    loom.compile(..., output_dir=directory) or an earlier load), else builds it there first from the
    `loom compile --emit=torch -o DIR` sources (runtime: as for compile)."""
    d = Path(directory)
    if not d.is_dir():
        raise LoomError(f"{d} is not a directory")
    m = _read_manifest(d)
    if m and (d / m["library"]).is_file():
        torch = _import_torch()
        if m["torch"] != torch.__version__:
            raise LoomError(f"{d} was built for torch {m['torch']}, this is torch {torch.__version__}; "
                            f"delete {d / MANIFEST} to rebuild it from its sources")
        return _load_library(m["entry"], d / m["library"], d)
    found = sorted(d.glob("*_torch.cpp"))
    if len(found) != 1:
        raise LoomError(f"{d} holds no loom PyTorch artifact ({len(found)} *_torch.cpp files, no {MANIFEST}); "
                        f"write one with `loom compile FILE --emit=torch -o {d}`")
    entry = found[0].name[: -len("_torch.cpp")]
    torch = _import_torch()
    rt = Path(runtime) if runtime else runtime_dir(loom)
    files = {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.name in (f"{entry}.cu", f"{entry}.h", found[0].name)}
    key = cache_key(files, runtime_files(rt), torch.__version__, torch.version.cuda, CXX_FLAGS + ["--"] + NVCC_FLAGS)
    return _build(d, entry, rt, key, verbose, (), ())
