"""Which files an `ingest PATH...` call means.

Directories are walked recursively in sorted order, taking the file endings
the readers understand and skipping hidden entries; `-` is standard input
(copied first so it can be hashed and re-read, into a file that has no name: see _spool_stdin).

A sub-directory holding a file named `.trace-audit-ignore` is skipped while
walking (it is still read when named on the command line). The sample month
uses this for its OTLP copy, which would otherwise load every turn twice.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# Endings picked up when walking a directory. A file named explicitly is read
# whatever its name; readers recognise records by content, not by name.
INGESTIBLE_SUFFIXES = (
    ".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz",
    ".pb", ".binpb", ".otlp", ".pb.gz", ".binpb.gz",
    ".parquet",
    ".traj", ".traj.gz",   # SWE-agent trajectories (JSON)
    ".eval",               # Inspect AI logs (a zip of JSON)
)


IGNORE_MARKER = ".trace-audit-ignore"


@dataclass(frozen=True)
class Source:
    path: str         # what to open
    shown: str        # what to call it in tables and messages
    problem: str | None = None  # set when the path cannot be read
    # What to do once the source is read (closes standard input's copy); see `release`.
    release: Callable[[], None] | None = field(default=None, compare=False, repr=False)


def _ingestible(p: Path) -> bool:
    name = p.name.lower()
    return any(name.endswith(s) for s in INGESTIBLE_SUFFIXES)


def expand(paths: list[str]) -> tuple[list[Source], list[str]]:
    """(sources to ingest, files skipped while walking directories)."""
    sources: list[Source] = []
    skipped: list[str] = []
    for given in paths:
        if given == "-":
            sources.append(_spool_stdin())
            continue
        p = Path(given)
        if not p.exists():
            sources.append(Source(given, given, f"{given}: no such file or directory"))
            continue
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__"))
                                 and not (Path(root) / d / IGNORE_MARKER).exists())
                for name in sorted(files):
                    f = Path(root) / name
                    if name.startswith("."):
                        continue
                    if _ingestible(f):
                        sources.append(_checked(f))
                    else:
                        skipped.append(str(f))
            continue
        sources.append(_checked(p))
    return sources, skipped


def _checked(p: Path) -> Source:
    shown = str(p)
    if not os.access(p, os.R_OK):
        return Source(shown, shown, f"{shown}: permission denied (cannot read the file)")
    if not p.is_file():
        return Source(shown, shown, f"{shown}: not a regular file")
    return Source(shown, shown)


def _spool_stdin() -> Source:
    # The copy holds the input before redaction, so it must never outlive the run, even a killed
    # one: TemporaryFile has no name from the start (O_TMPFILE, or unlinked at once), and the
    # loader opens it through this process's own descriptor table. Where there is no
    # /proc/self/fd, a named owner-only file is made and removed by `release` (not after SIGKILL).
    tmp = tempfile.TemporaryFile(prefix="trace-audit-stdin-")
    try:
        shutil.copyfileobj(sys.stdin.buffer, tmp, 1024 * 1024)
        tmp.flush()
    except BaseException:
        tmp.close()
        raise
    by_fd = f"/proc/self/fd/{tmp.fileno()}"
    if os.path.exists(by_fd):
        return Source(by_fd, "<stdin>", release=tmp.close)
    named = tempfile.NamedTemporaryFile(prefix="trace-audit-stdin-", suffix=".jsonl", delete=False)
    with tmp, named:
        tmp.seek(0)
        shutil.copyfileobj(tmp, named, 1024 * 1024)
    return Source(named.name, "<stdin>", release=lambda: _unlink(named.name))


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def release(sources: list[Source]) -> None:
    """Let go of what reading `sources` needed (standard input's copy); call once they are read."""
    for source in sources:
        if source.release is not None:
            source.release()
