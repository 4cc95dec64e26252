"""OTLP/JSON trace exports: the Collector file exporter's JSON lines, a single
pretty-printed request per `.json` file, or the spool of `serve-otlp`.

A record is claimed by its `resourceSpans` key (any OTLP trace request). Its
spans become rows of the raw `otel_spans` table, decoded in DuckDB
(`trace_audit.ingest.read.otlp.json_sql`); tasks, steps and messages are derived
from those after the file is loaded (see `trace_audit.ingest.read.otlp`).
Binary protobuf files come in through `trace_audit.ingest.read.otlp.proto.sniff`.
"""

from __future__ import annotations

import pyarrow as pa

from ..otlp.json_sql import decode_requests
from ..base import Decoded, SqlReader


class OtlpReader(SqlReader):
    name = "otlp"
    claims = [
        ("trace_request", "list_contains(k, 'resourceSpans') OR list_contains(k, 'resource_spans')"),
    ]

    def decode(self, con, kind: str, source_file: str, records: pa.Table) -> Decoded:
        out = Decoded()
        rows, errors = decode_requests(con, records)
        out.errors.extend(errors)
        out.add("otel_spans", rows)
        return out
