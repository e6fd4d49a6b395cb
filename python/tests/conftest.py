"""Shared fixtures: the loom binary under test ($LOOM, as CTest sets it, else `loom` on PATH) and
the repository's examples."""

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))  # the package from this checkout, installed or not


def _loom_binary():
    return os.environ.get("LOOM") or shutil.which("loom")


@pytest.fixture
def loom_bin():
    path = _loom_binary()
    if not path:
        pytest.skip("no loom binary: set LOOM=path/to/build/loom (CTest `python_tests` does)")
    return path


@pytest.fixture
def examples():
    return ROOT / "examples"


def torch_or_skip():
    """torch, or a skip that says why: CI installs only the PyTorch headers (docs/pytorch.md)."""
    try:
        import torch
        import torch.utils.cpp_extension  # noqa: F401
    except Exception as e:
        pytest.skip(f"PyTorch is not importable here ({type(e).__name__}: {e}); CI installs only its headers")
    return torch
