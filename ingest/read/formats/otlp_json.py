"""OTLP/JSON trace exports: the Collector file exporter's JSON lines, a single
pretty-printed request per `.json` file, or the spool of `serve-otlp`.

A record is claimed by its `resourceSpans` key (any OTLP trace request), or its
`resourceLogs` key (the logs signal: rows of `otel_logs`, see `otlp.logs`). Its
spans become rows of the raw `otel_spans` table, decoded in DuckDB
(`trace_audit.ingest.read.otlp.json_sql`); tasks, steps and messages are derived
from those after the file is loaded (see `trace_audit.ingest.read.otlp`).
Binary protobuf files come in through `trace_audit.ingest.read.otlp.proto.sniff`.
"""

from __future__ import annotations

import pyarrow as pa

import json

from ..otlp.json_sql import decode_requests
from ..otlp.logs import LogBatch, add_json_request
from ..otlp.spans import BadSpan
from ..base import Decoded, SqlReader


class OtlpReader(SqlReader):
    name = "otlp"
    claims = [
        ("trace_request", "list_contains(k, 'resourceSpans') OR list_contains(k, 'resource_spans')"),
        ("logs_request", "list_contains(k, 'resourceLogs') OR list_contains(k, 'resource_logs')"),
    ]

    def decode(self, con, kind: str, source_file: str, records: pa.Table) -> Decoded:
        out = Decoded()
        if kind.rsplit(":", 1)[-1] == "logs_request":
            return _decode_logs(records)
        rows, errors = decode_requests(con, records)
        out.errors.extend(errors)
        out.add("otel_spans", rows)
        return out


def _decode_logs(records: pa.Table) -> Decoded:
    """OTLP/JSON logs requests to `otel_logs` rows (few next to spans: the readable Python walk)."""
    out = Decoded()
    batch = LogBatch()
    for line, raw in zip(records.column("line").to_pylist(), records.column("raw").to_pylist()):
        try:
            add_json_request(json.loads(raw), line, batch, out.errors)
        except BadSpan as exc:
            out.errors.append((line, raw, f"not an OTLP logs request: {exc}"))
        except RecursionError:
            out.errors.append((line, raw, "OTLP logs request nested too deeply to read"))
    out.add("otel_logs", batch.to_arrow())
    return out
