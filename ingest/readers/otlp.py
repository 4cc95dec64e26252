"""OTLP/JSON trace exports: the Collector file exporter's JSON lines, a single
pretty-printed request per `.json` file, or the spool of `serve-otlp`.

A record is claimed by its `resourceSpans` key (any OTLP trace request). Its
spans become rows of the raw `otel_spans` table; tasks, steps and messages
are derived from those after the file is loaded (see `trace_audit.ingest.otlp`).
Binary protobuf files come in through `trace_audit.ingest.otlp.proto.sniff`.
"""

from __future__ import annotations

import json
from typing import Callable

from trace_audit.ingest.otlp.spans import BadSpan, SpanBatch, add_request
from trace_audit.ingest.readers.base import Decoded, PythonReader, RecordContext


class OtlpReader(PythonReader):
    name = "otlp"
    claims = [
        ("trace_request", "list_contains(k, 'resourceSpans') OR list_contains(k, 'resource_spans')"),
    ]

    def decode_records(self, records: list[tuple[int, str]],
                       ctx_factory: Callable[[int], RecordContext]) -> Decoded:
        out = Decoded()
        batch = SpanBatch()
        for line, raw in records:
            try:
                add_request(json.loads(raw), line, batch, out.errors)
            except RecursionError:
                out.errors.append((line, raw[:2000], "OTLP trace request is nested too deeply to read"))
            except (BadSpan, ValueError, TypeError, AttributeError) as exc:
                out.errors.append((line, raw[:2000], f"OTLP trace request could not be read: {exc}"))
        if len(batch):
            out.add("otel_spans", batch.to_arrow())
        return out
