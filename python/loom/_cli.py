"""Running the `loom` CLI and turning its --diagnostics=json output into exceptions.

No PyTorch here: this part works (and is tested) without it.
"""

import json
import os
import shutil
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Tuple


class LoomError(Exception):
    """Base class of everything the loom package raises."""


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of `loom --diagnostics=json` (docs/cli.md): line = column = 0 when it has no
    place in a file."""

    severity: str
    file: str
    line: int
    column: int
    message: str
    hint: Optional[str] = None
    notes: Tuple["Diagnostic", ...] = field(default_factory=tuple)

    @classmethod
    def from_json(cls, obj: dict) -> "Diagnostic":
        return cls(
            severity=str(obj.get("severity", "error")),
            file=str(obj.get("file", "")),
            line=int(obj.get("line", 0)),
            column=int(obj.get("column", 0)),
            message=str(obj.get("message", "")),
            hint=obj.get("hint"),
            notes=tuple(cls.from_json(n) for n in obj.get("notes", [])),
        )

    @property
    def location(self) -> str:
        """`file:line:col`, or `file` when there is no place in it."""
        return f"{self.file}:{self.line}:{self.column}" if self.line > 0 else self.file

    def __str__(self) -> str:
        lines = [f"{self.location}: {self.severity}: {self.message}"]
        if self.hint:
            lines.append(f"{self.location}: hint: {self.hint}")
        lines.extend(str(n) for n in self.notes)
        return "\n".join(lines)


class CompileError(LoomError):
    """loom refused the program (or the command): its diagnostics, in file:line:col form."""

    def __init__(self, diagnostics: Sequence[Diagnostic], returncode: int, command: Sequence[str], other_output: str = ""):
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        self.returncode = returncode
        self.command = list(command)
        self.other_output = other_output
        errors = [d for d in self.diagnostics if d.severity == "error"] or self.diagnostics
        text = "\n".join(str(d) for d in errors)
        if other_output:
            text = (text + "\n" + other_output).strip()
        if not text:
            text = f"loom exited with status {returncode} and printed no diagnostic"
        if returncode == 2:
            text += "\n(loom reported an internal error: a bug in loom, not in your program)"
        super().__init__(text)


def find_loom(loom: Optional[str] = None) -> str:
    """The `loom` binary: `loom` if given, else $LOOM, else `loom` on PATH."""
    for candidate, origin in ((loom, "loom="), (os.environ.get("LOOM"), "$LOOM")):
        if candidate:
            path = shutil.which(candidate) or candidate
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                raise LoomError(f"{origin} names {candidate!r}, which is not an executable file")
            return path
    found = shutil.which("loom")
    if found:
        return found
    raise LoomError(
        "cannot find the `loom` binary: pass loom='path/to/loom', set $LOOM, or put it on PATH "
        "(after `make build` it is build/loom in the loom checkout)"
    )


def parse_diagnostics(stderr: str) -> Tuple[List[Diagnostic], str]:
    """The JSON lines of `stderr` as diagnostics, and whatever else it held (verbatim)."""
    diags, other = [], []
    for line in stderr.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and "message" in obj:
            diags.append(Diagnostic.from_json(obj))
        elif line.strip():
            other.append(line)
    return diags, "\n".join(other)


def run(args: Sequence[str], loom: Optional[str] = None) -> subprocess.CompletedProcess:
    """Runs `loom ARGS --diagnostics=json`. Raises CompileError when loom fails; warnings of a
    successful run become Python warnings."""
    cmd = [find_loom(loom), *args, "--diagnostics=json"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    diags, other = parse_diagnostics(proc.stderr)
    if proc.returncode != 0:
        raise CompileError(diags, proc.returncode, cmd, other)
    for d in diags:
        warnings.warn(str(d), stacklevel=3)
    return proc


def runtime_dir(loom: Optional[str] = None) -> Path:
    """loom's runtime/ headers (the .cu and the operator include them): $LOOM_RUNTIME, else where
    the loom binary says (`loom --runtime-dir`)."""
    env = os.environ.get("LOOM_RUNTIME")
    path = Path(env) if env else Path(subprocess.run([find_loom(loom), "--runtime-dir"], stdout=subprocess.PIPE,
                                                      text=True, check=True).stdout.strip())
    if not (path / "loom" / "abi.h").is_file():
        raise LoomError(f"{path} is not loom's runtime/ directory (no loom/abi.h there); set $LOOM_RUNTIME")
    return path


def emit_torch(path: os.PathLike, out_dir: os.PathLike, loom: Optional[str] = None) -> str:
    """`loom compile PATH --emit=torch -o OUT_DIR`; returns the entry (OUT_DIR/<entry>_torch.cpp)."""
    run(["compile", os.fspath(path), "--emit=torch", "-o", os.fspath(out_dir)], loom)
    found = sorted(Path(out_dir).glob("*_torch.cpp"))
    if len(found) != 1:
        raise LoomError(f"loom compile --emit=torch wrote {len(found)} *_torch.cpp files into {out_dir}, expected one")
    return found[0].name[: -len("_torch.cpp")]
