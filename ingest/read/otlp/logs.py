"""OTLP log records (the logs signal) to rows of the raw `otel_logs` table. Pure: requests in, Arrow out.

A request is `ExportLogsServiceRequest`: resourceLogs -> scopeLogs -> logRecords, in OTLP/JSON
(the Collector file exporter's lines, the receiver's spool) or protobuf. Every record is stored
as it arrived (body and attributes as JSON, times to microseconds), so no record is lost; the
loader's rebuild then reads the GenAI events among them (`gen_ai.user.message`,
`gen_ai.choice`, `gen_ai.client.inference.operation.details`, ...) as the request and reply
text of the turn whose span they name by trace and span id (`messages.event_user_text`).

The event's name is `LogRecord.event_name` (OTLP 1.5 on), else the `event.name` attribute
that earlier SDKs' Events API wrote. Ids follow the trace rules: hex in OTLP/JSON (base64 from
protobuf's own JSON printer too), bytes in protobuf; a record without ids is a plain log and
is kept. A record whose ids cannot be read is rejected on its own, with its reason.

`log_id` is a digest of the record as stored, so the same record sent twice (an exporter's
retry, a file loaded after the receiver got it) is one row.

Logs are far fewer than spans (a few events per LLM call), so the walk is plain Python, the
readable kind: about 29,000 records per CPU-second (100,000 gen_ai.choice events of realistic
size in 500-record JSON requests, parsed, walked and made Arrow; measured 2026-12-01). That is
several thousand LLM calls a second; a bulk reader like the spans' would be the next step if
logs ever outgrow it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pyarrow as pa

from .proto import attributes as pb_attributes, any_value as pb_any_value, INT64_MAX
from .spans import BadSpan, _cut, _pick, attributes, any_value, columns_to_arrow, dumps, hex_id, int64

SCOPE_KEYS = ("scopeLogs", "scope_logs", "instrumentationLibraryLogs", "instrumentation_library_logs")


class LogBatch:
    """Column lists of `otel_logs` rows, built record by record, turned to Arrow once."""

    COLUMNS = ("log_id", "trace_id", "span_id", "event_name", "time_ns", "observed_ns", "severity_number",
               "severity_text", "body", "attributes", "resource", "scope_name", "scope_version", "source_line")

    def __init__(self) -> None:
        self.cols: dict[str, list[Any]] = {c: [] for c in self.COLUMNS}

    def __len__(self) -> int:
        return len(self.cols["log_id"])

    def add(self, line: int, trace_id, span_id, event_name, time_ns: int, observed_ns: int, severity_number,
            severity_text, body: Any, attrs: dict, resource_text: str, scope_name, scope_version) -> None:
        if not event_name and isinstance(attrs.get("event.name"), str):
            event_name = attrs["event.name"]
        body_text = dumps(body) if body is not None else None
        attrs_text = dumps(attrs)
        identity = dumps([trace_id, span_id, event_name, time_ns, observed_ns, severity_number, severity_text,
                          body_text, attrs_text, resource_text, scope_name, scope_version])
        c = self.cols
        c["log_id"].append(hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:32])
        c["trace_id"].append(trace_id)
        c["span_id"].append(span_id)
        c["event_name"].append(event_name or None)
        c["time_ns"].append(time_ns)
        c["observed_ns"].append(observed_ns)
        c["severity_number"].append(severity_number or None)
        c["severity_text"].append(severity_text or None)
        c["body"].append(body_text)
        c["attributes"].append(attrs_text)
        c["resource"].append(resource_text)
        c["scope_name"].append(scope_name or None)
        c["scope_version"].append(scope_version or None)
        c["source_line"].append(line)

    def to_arrow(self) -> pa.Table:
        return columns_to_arrow("otel_logs", self.cols, len(self), {"logged_at": "time_ns", "observed_at": "observed_ns"})


def _time(value: Any, what: str) -> int:
    ns = int64(value) or 0
    if not 0 <= ns <= INT64_MAX:
        raise BadSpan(f"{what} {ns} is outside 0 .. 2^63 - 1 ns")
    return ns


# ---- OTLP/JSON ---------------------------------------------------------------------------------


def json_structure(obj: Any) -> list[tuple[dict, str, list[tuple[dict, list]]]]:
    """[(resourceLogs entry, its scope key, [(scope entry, its log records)])]; BadSpan for a request that is not
    OTLP logs as a whole (what the receiver answers 400 and a file quarantines)."""
    if not isinstance(obj, dict):
        raise BadSpan("an OTLP logs request must be a JSON object with resourceLogs")
    resource_logs = _pick(obj, "resourceLogs", "resource_logs")
    if resource_logs is None:
        return []
    if not isinstance(resource_logs, list):
        raise BadSpan("resourceLogs must be a JSON array")
    out = []
    for ri, rl in enumerate(resource_logs):
        if not isinstance(rl, dict):
            raise BadSpan(f"resourceLogs[{ri}] must be a JSON object")
        if rl.get("resource") is not None and not isinstance(rl["resource"], dict):
            raise BadSpan(f"resourceLogs[{ri}].resource must be a JSON object")
        key = next((k for k in SCOPE_KEYS if rl.get(k) is not None), SCOPE_KEYS[0])
        scopes = rl.get(key) or []
        if not isinstance(scopes, list):
            raise BadSpan(f"resourceLogs[{ri}].{key} must be a JSON array")
        pairs = []
        for si, sl in enumerate(scopes):
            if not isinstance(sl, dict):
                raise BadSpan(f"resourceLogs[{ri}].{key}[{si}] must be a JSON object")
            records = _pick(sl, "logRecords", "log_records") or []
            if not isinstance(records, list):
                raise BadSpan(f"resourceLogs[{ri}].{key}[{si}].logRecords must be a JSON array")
            pairs.append((sl, records))
        out.append((rl, key, pairs))
    return out


def json_record_values(rec: Any) -> tuple:
    """The stored values of one OTLP/JSON log record; BadSpan (or ValueError) when it cannot be stored."""
    if not isinstance(rec, dict):
        raise BadSpan("a log record must be a JSON object")
    trace_id = hex_id(_pick(rec, "traceId", "trace_id"), 16, "traceId")
    span_id = hex_id(_pick(rec, "spanId", "span_id"), 8, "spanId")
    severity = rec.get("severityNumber", rec.get("severity_number"))
    if isinstance(severity, str) and not severity.lstrip("-").isdigit():
        severity = _SEVERITY_NAMES.get(severity.upper(), 0)
    return (trace_id, span_id, _pick(rec, "eventName", "event_name"),
            _time(_pick(rec, "timeUnixNano", "time_unix_nano"), "timeUnixNano"),
            _time(_pick(rec, "observedTimeUnixNano", "observed_time_unix_nano"), "observedTimeUnixNano"),
            int(severity or 0), _pick(rec, "severityText", "severity_text"),
            any_value(rec.get("body")), attributes(rec.get("attributes")))


_SEVERITY_NAMES = {f"SEVERITY_NUMBER_{n}": i for i, n in enumerate(
    ["UNSPECIFIED", "TRACE", "TRACE2", "TRACE3", "TRACE4", "DEBUG", "DEBUG2", "DEBUG3", "DEBUG4", "INFO", "INFO2",
     "INFO3", "INFO4", "WARN", "WARN2", "WARN3", "WARN4", "ERROR", "ERROR2", "ERROR3", "ERROR4", "FATAL", "FATAL2",
     "FATAL3", "FATAL4"])}


def add_json_request(obj: Any, line: int, batch: LogBatch, errors: list[tuple[int, str, str]]) -> tuple[int, int]:
    """Add the records of one parsed OTLP/JSON logs request; returns (accepted, rejected)."""
    accepted = rejected = 0
    for rl, _, scopes in json_structure(obj):
        resource_text = dumps(attributes((rl.get("resource") or {}).get("attributes")))
        for sl, records in scopes:
            scope = sl.get("scope") or _pick(sl, "instrumentationLibrary", "instrumentation_library") or {}
            for rec in records:
                try:
                    values = json_record_values(rec)
                except (BadSpan, ValueError, TypeError, AttributeError, OverflowError) as exc:
                    rejected += 1
                    errors.append((line, _cut(rec), f"log record rejected: {exc}"))
                    continue
                accepted += 1
                batch.add(line, *values, resource_text, scope.get("name"), scope.get("version"))
    return accepted, rejected


# ---- protobuf ----------------------------------------------------------------------------------


def record_problem(rec) -> str | None:
    """Why a protobuf log record cannot be stored, or None (ids are optional on a log)."""
    if rec.trace_id and (len(rec.trace_id) != 16 or not any(rec.trace_id)):
        return f"trace_id is {len(rec.trace_id)} bytes, expected 16 non-zero bytes (or none)"
    if rec.span_id and (len(rec.span_id) != 8 or not any(rec.span_id)):
        return f"span_id is {len(rec.span_id)} bytes, expected 8 non-zero bytes (or none)"
    for name in ("time_unix_nano", "observed_time_unix_nano"):
        if getattr(rec, name) > INT64_MAX:
            return f"{name} {getattr(rec, name)} is past the largest time there is (2^63 - 1 ns)"
    return None


def add_proto_request(request, line: int, batch: LogBatch, errors: list[tuple[int, str, str]]) -> tuple[int, int]:
    """Add the records of one decoded ExportLogsServiceRequest; returns (accepted, rejected)."""
    accepted = rejected = 0
    for rl in request.resource_logs:
        resource_text = dumps(pb_attributes(rl.resource.attributes))
        for sl in rl.scope_logs:
            for rec in sl.log_records:
                problem = record_problem(rec)
                if problem:
                    rejected += 1
                    errors.append((line, f"<protobuf log record {rec.event_name[:200]!r}>",
                                   f"log record rejected: {problem}"))
                    continue
                accepted += 1
                body = pb_any_value(rec.body) if rec.HasField("body") else None
                batch.add(line, rec.trace_id.hex() or None, rec.span_id.hex() or None, rec.event_name,
                          rec.time_unix_nano, rec.observed_time_unix_nano, int(rec.severity_number),
                          rec.severity_text, body, pb_attributes(rec.attributes), resource_text,
                          sl.scope.name, sl.scope.version)
    return accepted, rejected
