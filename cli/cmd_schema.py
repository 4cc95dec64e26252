"""`trace-audit schema`: the JSON Schema of the canonical record shapes."""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema of canonical records",
                       description="Print the JSON Schema of the canonical JSONL record shapes "
                                   "(task, step, message, audit); --sql prints the warehouse DDL instead.")
    p.add_argument("--sql", action="store_true", help="print the warehouse tables (DuckDB DDL)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.sql:
        from ..queries.warehouse.db import schema_sql

        print(schema_sql())
    else:
        from ..ingest.read.records import json_schema

        print(json.dumps(json_schema(), indent=2, ensure_ascii=False))
    return 0
