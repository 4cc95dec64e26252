"""A file that grows while it is read: its size and hash come from the same bytes, so it is not
stored as one content and found again as another. The growth is injected at the moment the
loader finishes reading (the writer appending just then), into a real file and a real DuckDB."""

from __future__ import annotations

import json

from test_ingest_support import query, task
from trace_audit.ingest.load import loader
from trace_audit.ingest.load.loader import ingest


def test_a_file_growing_while_read_is_refused_then_loads_whole_once_complete(tmp_path, db_path, monkeypatch):
    path = tmp_path / "growing.jsonl"
    path.write_text("".join(json.dumps(task(i)) + "\n" for i in range(100)))
    real_finish = loader._HashingReader.finish

    def finish_after_an_append(self):
        with open(path, "a") as fh:  # the producer writes more just as the reader reached the end
            fh.write("".join(json.dumps(task(i)) + "\n" for i in range(100, 150)))
        return real_finish(self)

    monkeypatch.setattr(loader._HashingReader, "finish", finish_after_an_append)
    (result,) = ingest([str(path)], db_path).files
    assert result.status == "failed" and "changed while it was being read" in result.message
    assert query(db_path, "SELECT count(*) FROM tasks")[0][0] == 0  # rolled back whole
    monkeypatch.setattr(loader._HashingReader, "finish", real_finish)
    (result,) = ingest([str(path)], db_path).files
    assert result.status == "loaded" and result.counts["tasks"] == 150
    assert query(db_path, "SELECT size_bytes FROM ingest_files") == [(path.stat().st_size,)]
    (again,) = ingest([str(path)], db_path).files
    assert again.status == "already_loaded"
