"""The package's CLI side against the real `loom` binary: diagnostics become CompileError with
file:line:col, the artifact is written, the runtime is found. No PyTorch needed."""

import json
import os
import subprocess
import warnings

import pytest

import loom
from loom import _cli


BAD = """task gemm<T, E>(C: rw T[M, N], A: r E[M, K], B: r E[K, N]);
variant v of gemm(C, A, B): inner {
  gem(C, A, B);
}
"""


def test_bad_program_raises_compile_error_with_location(tmp_path, loom_bin):
    src = tmp_path / "bad.loom"
    src.write_text(BAD)
    with pytest.raises(loom.CompileError) as info:
        loom.compile(src, loom=loom_bin)
    err = info.value
    assert err.returncode == 1
    first = err.diagnostics[0]
    assert (first.file, first.line, first.column, first.severity) == (str(src), 3, 3, "error")
    assert "unknown task 'gem'" in first.message
    assert first.hint == "did you mean 'gemm'?"
    # The exception's text is loom's text form.
    assert f"{src}:3:3: error: unknown task 'gem'" in str(err)
    assert f"{src}:3:3: hint: did you mean 'gemm'?" in str(err)


def test_diagnostics_match_the_cli_json_form(tmp_path, loom_bin):
    src = tmp_path / "bad.loom"
    src.write_text(BAD)
    proc = subprocess.run([loom_bin, "check", str(src), "--diagnostics=json"], stderr=subprocess.PIPE, text=True)
    raw = [json.loads(line) for line in proc.stderr.splitlines()]
    with pytest.raises(loom.CompileError) as info:
        loom.compile(src, loom=loom_bin)
    assert [d.message for d in info.value.diagnostics] == [r["message"] for r in raw]
    assert [(d.line, d.column) for d in info.value.diagnostics] == [(r["line"], r["column"]) for r in raw]


def test_back_end_refusal_is_located(tmp_path, examples, loom_bin):
    # flash_attention_3 with `pingpong`: the back end refuses turns on its hand-pipelined loop.
    text = (examples / "flash_attention_3" / "flash_attention_3.loom").read_text()
    hand = "warpspecialize pipeline(2) smem(227KB);"
    assert hand in text
    src = tmp_path / "fa3_pingpong.loom"
    src.write_text(text.replace(hand, "warpspecialize pipeline(2) pingpong smem(227KB);"))
    with pytest.raises(loom.CompileError) as info:
        loom.compile(src, loom=loom_bin)
    d = info.value.diagnostics[0]
    assert d.file.endswith("fa3_pingpong.loom") and d.line > 0 and d.column > 0
    assert "the CUDA back end cannot lower `pingpong`" in d.message


def test_unreadable_file_is_a_compile_error(tmp_path, loom_bin):
    with pytest.raises(loom.CompileError) as info:
        loom.compile(tmp_path / "missing.loom", loom=loom_bin)
    d = info.value.diagnostics[0]
    assert d.message == "cannot read the file" and d.line == 0
    assert str(d).startswith(f"{tmp_path / 'missing.loom'}: error: cannot read the file")


def test_emit_torch_writes_the_artifact(tmp_path, examples, loom_bin):
    entry = _cli.emit_torch(examples / "gemm" / "gemm.loom", tmp_path, loom_bin)
    assert entry == "gemm"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gemm.cu", "gemm.h", "gemm_torch.cpp"]
    assert 'm.def("gemm(Tensor A, Tensor B) -> Tensor"' in (tmp_path / "gemm_torch.cpp").read_text()


def test_runtime_dir_comes_from_the_binary(loom_bin, monkeypatch):
    monkeypatch.delenv("LOOM_RUNTIME", raising=False)
    rt = loom.runtime_dir(loom_bin)
    assert (rt / "loom" / "abi.h").is_file() and (rt / "loom" / "torch.h").is_file()
    monkeypatch.setenv("LOOM_RUNTIME", "/nonexistent")
    with pytest.raises(loom.LoomError, match="LOOM_RUNTIME"):
        loom.runtime_dir(loom_bin)


def test_missing_binary_says_how_to_fix_it(tmp_path, monkeypatch):
    monkeypatch.delenv("LOOM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(loom.LoomError, match="set \\$LOOM"):
        loom.find_loom()
    with pytest.raises(loom.LoomError, match="not an executable"):
        loom.find_loom(str(tmp_path / "nope"))


def test_warnings_of_a_successful_run_become_python_warnings(tmp_path):
    # A stand-in binary that succeeds with one JSON warning: only the plumbing is under test here.
    fake = tmp_path / "loom"
    fake.write_text('#!/bin/sh\necho \'{"severity":"warning","file":"x.loom","line":2,"column":4,'
                    '"message":"unused tunable","notes":[]}\' >&2\nexit 0\n')
    fake.chmod(0o755)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _cli.run(["check", "x.loom"], str(fake))
    assert [str(w.message) for w in caught] == ["x.loom:2:4: warning: unused tunable"]


def test_non_json_output_is_kept_in_the_error(tmp_path):
    fake = tmp_path / "loom"
    fake.write_text("#!/bin/sh\necho 'Segmentation fault' >&2\nexit 139\n")
    fake.chmod(0o755)
    with pytest.raises(loom.CompileError, match="Segmentation fault"):
        _cli.run(["check", "x.loom"], str(fake))


def test_notes_are_parsed():
    d = loom.Diagnostic.from_json({"severity": "error", "file": "a.loom", "line": 4, "column": 5, "message": "m",
                                   "notes": [{"severity": "note", "file": "a.loom", "line": 1, "column": 1,
                                              "message": "declared here", "notes": []}]})
    assert d.notes[0].location == "a.loom:1:1"
    assert str(d) == "a.loom:4:5: error: m\na.loom:1:1: note: declared here"
