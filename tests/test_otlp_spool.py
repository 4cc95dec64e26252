"""The receiver's spool: size-bounded segments, owner-only directory."""

from __future__ import annotations

import stat

from trace_audit.ingest.receive import spool as spool_mod
from trace_audit.ingest.receive.spool import Spool


def test_a_backlog_becomes_many_bounded_segments(tmp_path, monkeypatch):
    monkeypatch.setattr(spool_mod, "SEGMENT_BYTES", 1000)
    s = Spool(tmp_path / "spool")
    payload = b"x" * 300
    for _ in range(10):
        s.append("pb", payload)
    ready = s.ready()
    # 304 bytes per record: every 4th append crosses 1000 bytes and seals the segment.
    assert len(ready) == 2
    assert all(p.stat().st_size == 4 * 304 for p in ready)
    s.seal()
    sizes = sorted(p.stat().st_size for p in s.ready())
    assert sizes == [2 * 304, 4 * 304, 4 * 304]
    assert sum(sizes) == 10 * 304  # nothing lost across rotations


def test_spool_directory_is_owner_only(tmp_path):
    s = Spool(tmp_path / "spool")
    mode = stat.S_IMODE((tmp_path / "spool").stat().st_mode)
    assert mode == 0o700
    s.close()
