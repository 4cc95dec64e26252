"""OTLP/JSON trace requests to rows of the raw `otel_spans` table.

Accepts what real producers write, not only what the specification says:
ids in hex (the OTLP/JSON rule) or base64 (protobuf's own JSON printer);
enums as integers or names; 64-bit integers as strings or numbers;
lowerCamelCase or snake_case field names; every AnyValue kind (arrays and
kvlists become JSON arrays and objects, bytes stay base64). Unknown fields
are ignored. A span whose ids cannot be read is rejected on its own; the
other spans of the request still load.

Attributes are flattened to one JSON object per span (`{"key": value}`), so
the mapping stage and ad-hoc SQL (`attributes->>'gen_ai.tool.name'`) read
them by name.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ....queries.warehouse.types import arrow_schema

RAW_KEEP_CHARS = 2000

SPAN_KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}
STATUS_CODES = {0: "unset", 1: "ok", 2: "error"}
_KIND_NAMES = {f"SPAN_KIND_{v.upper()}": v for v in SPAN_KINDS.values()}
_STATUS_NAMES = {f"STATUS_CODE_{v.upper()}": v for v in STATUS_CODES.values()}


class BadSpan(ValueError):
    """A span that cannot be stored; the message says which field and why."""


def span_kind(value: Any) -> str:
    if value is None or value == "":
        return "unspecified"
    if isinstance(value, int):
        return SPAN_KINDS.get(value, "unspecified")
    text = str(value)
    if text.isdigit():
        return SPAN_KINDS.get(int(text), "unspecified")
    return _KIND_NAMES.get(text.upper(), text.lower().removeprefix("span_kind_"))


def status_code(value: Any) -> str:
    if value is None or value == "":
        return "unset"
    if isinstance(value, int):
        return STATUS_CODES.get(value, "unset")
    text = str(value)
    if text.isdigit():
        return STATUS_CODES.get(int(text), "unset")
    return _STATUS_NAMES.get(text.upper(), text.lower().removeprefix("status_code_"))


def hex_id(value: Any, nbytes: int, what: str) -> str | None:
    """A trace or span id as lower-case hex; hex or base64 text, or raw bytes."""
    if value is None or value == "" or value == b"":
        return None
    if isinstance(value, (bytes, bytearray)):
        raw = bytes(value)
    elif isinstance(value, str):
        if len(value) == 2 * nbytes:
            try:
                raw = bytes.fromhex(value)
            except ValueError:
                raw = _b64(value, what)
        else:
            raw = _b64(value, what)
    else:
        raise BadSpan(f"{what} must be a string, got {type(value).__name__}")
    if len(raw) != nbytes:
        raise BadSpan(f"{what} {str(value)[:40]!r} is {len(raw)} bytes, expected {nbytes} (hex or base64)")
    if not any(raw):
        raise BadSpan(f"{what} is all zeros (invalid in OTLP)")
    return raw.hex()


def _b64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        try:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError) as exc:
            raise BadSpan(f"{what} {text[:40]!r} is neither hex nor base64") from exc


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def int64(value: Any) -> int | None:
    """An int64 field (a time): a number or a string of digits, within int64 (as the SQL reads it)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):  # int(True) is 1; JSON true is no integer, and the SQL rejects it
        raise BadSpan(f"{value!r} is not an integer")
    n = int(value)
    if not INT64_MIN <= n <= INT64_MAX:
        raise BadSpan(f"{str(value)[:40]} is outside int64 (a time past the year 2262?)")
    return n


def _int(x: Any) -> int:
    if isinstance(x, bool):
        raise BadSpan("intValue true/false is not an integer")
    return int(x)


def _double(x: Any) -> float | None:
    if isinstance(x, bool):
        raise BadSpan("doubleValue true/false is not a number")
    f = float(x)  # "NaN", "Infinity" as protobuf's JSON writes them
    return f if math.isfinite(f) else None


def _array(x: Any) -> list[Any]:
    return [any_value(v) for v in (x or {}).get("values", ())] if isinstance(x, dict) else []


def _kvlist(x: Any) -> dict[str, Any]:
    return attributes(x.get("values")) if isinstance(x, dict) else {}


_ANY = {
    "stringValue": lambda x: x, "string_value": lambda x: x,
    "boolValue": lambda x: x if isinstance(x, bool) else str(x).lower() == "true",
    "bool_value": lambda x: x if isinstance(x, bool) else str(x).lower() == "true",
    "intValue": _int, "int_value": _int,
    "doubleValue": _double, "double_value": _double,
    "arrayValue": _array, "array_value": _array,
    "kvlistValue": _kvlist, "kvlist_value": _kvlist,
    "bytesValue": lambda x: x, "bytes_value": lambda x: x,  # kept as the base64 text it arrived in
}


def any_value(v: Any) -> Any:
    """An OTLP/JSON AnyValue as a plain JSON value (an empty AnyValue is null)."""
    if not isinstance(v, dict):
        return v
    for key, x in v.items():
        conv = _ANY.get(key)
        if conv is not None:
            return conv(x)
    return None


def attributes(kvs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not kvs:
        return out
    for kv in kvs:
        key = kv.get("key")
        if key is not None:
            v = kv.get("value")
            # Most attributes are strings: skip the general conversion for them.
            if type(v) is dict and len(v) == 1 and "stringValue" in v:
                out[key] = v["stringValue"]
            else:
                out[key] = any_value(v)
    return out


# One encoder for every span: json.dumps with arguments builds a new one per call.
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class SpanBatch:
    """Column lists of `otel_spans` rows, built span by span, turned to Arrow once."""

    COLUMNS = ("trace_id", "span_id", "parent_span_id", "name", "kind", "start_ns", "end_ns",
               "status_code", "status_message", "attributes", "resource", "scope_name", "scope_version",
               "events", "source_line")

    def __init__(self) -> None:
        self.cols: dict[str, list[Any]] = {c: [] for c in self.COLUMNS}

    def __len__(self) -> int:
        return len(self.cols["span_id"])

    def to_arrow(self) -> pa.Table:
        return columns_to_arrow("otel_spans", self.cols, len(self), {"started_at": "start_ns", "ended_at": "end_ns"})


def columns_to_arrow(table: str, cols: dict[str, list[Any]], n: int, times: dict[str, str]) -> pa.Table:
    """Column lists of a raw OTLP table to Arrow of its warehouse types; `times` maps each
    timestamp column to the list of nanoseconds it is made of; source_file is the loader's."""
    schema = arrow_schema(table)
    out = {}
    for f in schema:
        if f.name in times:
            out[f.name] = micros(pa.array(cols[times[f.name]], pa.int64())).cast(f.type)
        elif f.name == "source_file":
            out[f.name] = pa.nulls(n, f.type)
        else:
            out[f.name] = pa.array(cols[f.name], f.type)
    return pa.table(out, schema=schema)


def micros(ns: pa.Array) -> pa.Array:
    """Span times: int64 nanoseconds since the epoch to microseconds; 0 (not set) to null."""
    return pc.divide(pc.if_else(pc.equal(ns, 0), pa.scalar(None, pa.int64()), ns), 1000)


def _pick(d: dict, camel: str, snake: str) -> Any:
    v = d.get(camel)
    return d.get(snake) if v is None else v


def span_values(span: Any) -> tuple:
    """One OTLP/JSON span's converted values (trace_id, span_id, parent, start_ns, end_ns,
    attributes text, events text, kind, status code); raises BadSpan, ValueError, TypeError
    or AttributeError for a span that cannot be stored. The receiver's validation calls it
    too, so what it acknowledges is what this reference (and the SQL it is tested against) stores."""
    trace_id = hex_id(_pick(span, "traceId", "trace_id"), 16, "traceId")
    span_id = hex_id(_pick(span, "spanId", "span_id"), 8, "spanId")
    if trace_id is None or span_id is None:
        raise BadSpan("traceId and spanId are required")
    parent = hex_id(_pick(span, "parentSpanId", "parent_span_id"), 8, "parentSpanId")
    start = int64(_pick(span, "startTimeUnixNano", "start_time_unix_nano")) or 0
    end = int64(_pick(span, "endTimeUnixNano", "end_time_unix_nano")) or 0
    attrs = dumps(attributes(span.get("attributes")))
    status = span.get("status") or {}
    events = span.get("events")
    events_text = dumps([{
        "name": e.get("name"),
        "time_unix_nano": int64(_pick(e, "timeUnixNano", "time_unix_nano")),
        "attributes": attributes(e.get("attributes")),
    } for e in events]) if events else None
    return (trace_id, span_id, parent, start, end, attrs, events_text,
            span_kind(span.get("kind")), status_code(status.get("code")))


def add_request(obj: Any, line: int, batch: SpanBatch, errors: list[tuple[int, str, str]]) -> tuple[int, int]:
    """Add the spans of one ExportTraceServiceRequest (as parsed JSON); returns (accepted, rejected)."""
    if not isinstance(obj, dict):
        raise BadSpan("an OTLP trace request must be a JSON object with resourceSpans")
    resource_spans = _pick(obj, "resourceSpans", "resource_spans")
    if resource_spans is None:
        raise BadSpan("no resourceSpans in this record")
    if not isinstance(resource_spans, list):
        raise BadSpan("resourceSpans must be a JSON array")
    accepted = rejected = 0
    c = batch.cols
    for rs in resource_spans:
        resource = attributes((rs.get("resource") or {}).get("attributes"))
        resource_text = dumps(resource)
        scopes = _pick(rs, "scopeSpans", "scope_spans")
        if scopes is None:
            scopes = _pick(rs, "instrumentationLibrarySpans", "instrumentation_library_spans") or ()
        for ss in scopes:
            scope = ss.get("scope") or _pick(ss, "instrumentationLibrary", "instrumentation_library") or {}
            scope_name, scope_version = scope.get("name"), scope.get("version")
            for span in ss.get("spans") or ():
                try:
                    trace_id, span_id, parent, start, end, attrs, events_text, kind, code = span_values(span)
                except (BadSpan, ValueError, TypeError, AttributeError) as exc:
                    rejected += 1
                    errors.append((line, _cut(span), f"span rejected: {exc}"))
                    continue
                status = span.get("status") or {}
                accepted += 1
                c["trace_id"].append(trace_id)
                c["span_id"].append(span_id)
                c["parent_span_id"].append(parent)
                c["name"].append(span.get("name"))
                c["kind"].append(kind)
                c["start_ns"].append(start)
                c["end_ns"].append(end)
                c["status_code"].append(code)
                c["status_message"].append(status.get("message") or None)
                c["attributes"].append(attrs)
                c["resource"].append(resource_text)
                c["scope_name"].append(scope_name)
                c["scope_version"].append(scope_version)
                c["events"].append(events_text)
                c["source_line"].append(line)
    return accepted, rejected


def _cut(value: Any) -> str:
    try:
        text = dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= RAW_KEEP_CHARS else text[:RAW_KEEP_CHARS] + "…"
