"""Who holds a DuckDB file's lock: a reader or a writer, and which process.

DuckDB locks the whole file with fcntl: a read-only connection takes a shared (READ) lock, a
read-write one an exclusive (WRITE) lock. Linux lists them in /proc/locks by device and inode,
so the holder's mode is read there; elsewhere (or when the list cannot be read) it is unknown,
and the message says "another process" as before.
"""

from __future__ import annotations

import os


def holder(path: str) -> tuple[str | None, int | None]:
    """("reader" | "writer" | None, pid or None) of the lock on `path`."""
    try:
        st = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None, None
    dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    me = os.getpid()
    for line in lines:
        parts = line.split()
        # "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a "->" marks a waiter)
        if "->" in parts or len(parts) < 6 or parts[5].lower() != dev:
            continue
        try:
            pid = int(parts[4])
        except ValueError:
            continue
        if pid == me:
            continue
        return ("writer" if parts[3] == "WRITE" else "reader"), pid
    return None, None


def describe(path: str) -> str:
    mode, pid = holder(path)
    if mode == "reader":
        return (f"a reader holds it (process {pid}: the dashboard or a read-only command such as "
                "findings); DuckDB lets no one write while a reader has the file open")
    if mode == "writer":
        return f"a writer holds it (process {pid}: an ingest, rules run or the OTLP receiver)"
    return "another process holds it"
