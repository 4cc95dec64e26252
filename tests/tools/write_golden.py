"""Write `<name>.expected.json` for a golden input from what the loader stores now.

For a new format's fixture only: read the written file through before committing it (the
golden test then pins it). Usage: python tests/tools/write_golden.py tests/fixtures/golden/<fmt>/<file>
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from golden_support import ORDER, _plain, query  # noqa: E402
from trace_audit.ingest.load.loader import ingest  # noqa: E402
from trace_audit.ingest.redact.config import RedactionConfig  # noqa: E402

COLUMNS = {
    "tasks": ["task_id", "source", "user_id", "conversation_id", "goal", "status", "total_steps", "success_steps",
              "started_at", "finished_at", "final_answer", "model", "metadata", "source_line"],
    "steps": ["task_id", "seq", "step_id", "tool", "kind", "args", "reason", "status", "verified", "error",
              "result", "started_at", "ended_at", "metadata"],
    "messages": ["message_id", "conversation_id", "user_id", "role", "content", "created_at", "task_id", "source",
                 "metadata"],
    "ingest_errors": ["line", "reason"],
}

for name in sys.argv[1:]:
    source = Path(name)
    with tempfile.TemporaryDirectory() as tmp:
        db_path = str(Path(tmp) / "w.duckdb")
        ingest([str(source)], db_path, redaction=RedactionConfig(enabled=False))
        out = {}
        for table, columns in COLUMNS.items():
            rows = query(db_path, f"SELECT {', '.join(columns)} FROM {table} ORDER BY {ORDER[table]}")
            out[table] = [{c: _plain(c, v) for c, v in zip(columns, row)} for row in rows]
    target = source.with_name(source.name.split(".")[0] + ".expected.json")
    target.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(target)
