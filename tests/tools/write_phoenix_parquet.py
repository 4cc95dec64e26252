"""Write tests/fixtures/golden/phoenix/spans.parquet from spans.rows.json (the rows of a Phoenix spans
dataframe, see PROVENANCE.md there) the way `df.to_parquet()` stores them: times as timestamps, the
message lists as lists of structs. Usage: python tests/tools/write_phoenix_parquet.py"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "golden" / "phoenix"
rows = json.loads((HERE / "spans.rows.json").read_text(encoding="utf-8"))
for row in rows:
    for key in ("start_time", "end_time"):
        row[key] = datetime.fromisoformat(row[key])
    for e in row["events"]:
        e["timestamp"] = datetime.fromisoformat(e["timestamp"])
pq.write_table(pa.Table.from_pylist(rows), HERE / "spans.parquet")
print(HERE / "spans.parquet")
