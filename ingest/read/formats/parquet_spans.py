"""Parquet files of spans written by tracing products, turned into the JSON records their
readers take (so a Parquet export and a JSON export of the same traces load alike).

- LangSmith's bulk export (Parquet with the fields of the Run data format: `id`, `run_type`,
  `trace_id`, `dotted_order`, `inputs`/`outputs` as JSON text, ...): each row becomes one run
  record for the `langsmith` reader.
- A Phoenix trace dataset (`TraceDataset.save()` / `get_spans_dataframe().to_parquet()`: the
  columns `name`, `span_kind`, `parent_id`, `start_time`, `end_time`, `status_code`,
  `status_message`, `context.span_id`, `context.trace_id`, `events` and `attributes.*`): Phoenix
  spans are OpenInference OpenTelemetry spans, so the rows become OTLP/JSON requests
  (`resourceSpans`) and go through the OTLP mapping (docs/opentelemetry.md). The attribute
  columns are read whether flattened to the full key (`attributes.llm.model_name`) or one level
  deep as `pd.json_normalize(max_level=1)` leaves them (`attributes.llm` holding `{model_name}`);
  nested values and lists are flattened to OpenInference's dotted keys
  (`llm.input_messages.0.message.role`).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Iterator

import pyarrow.parquet as pq

from ..framing import Frame

ROWS_PER_FRAME = 5000          # LangSmith runs; a trace's runs must share a frame (span_tree)
SPANS_PER_REQUEST = 1000       # Phoenix rows per OTLP request record
LANGSMITH_COLUMNS = ({"run_type", "trace_id"}, {"run_type", "dotted_order"})
PHOENIX_COLUMNS = {"context.span_id", "context.trace_id", "status_code"}
_ATTRIBUTE_PREFIX = "attributes."
_STATUS = {"OK": 1, "ERROR": 2, "UNSET": 0}


def kind_of(names: set[str]) -> str | None:
    if PHOENIX_COLUMNS <= names:
        return "phoenix"
    if any(needed <= names for needed in LANGSMITH_COLUMNS):
        return "langsmith"
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, default=_plain)


def frames(kind: str, pf: pq.ParquetFile, counter) -> Iterator[Frame]:
    if kind == "langsmith":
        yield from _langsmith_frames(pf, counter)
    else:
        yield from _phoenix_frames(pf, counter)


def _langsmith_frames(pf: pq.ParquetFile, counter) -> Iterator[Frame]:
    line = 0
    for batch in pf.iter_batches(batch_size=ROWS_PER_FRAME):
        frame = Frame(bytes_read=counter.count)
        for row in batch.to_pylist():
            line += 1
            frame.lines.append(line)
            frame.raws.append(_dump({k: v for k, v in row.items() if v is not None}))
        yield frame


# ---- Phoenix ---------------------------------------------------------------------------------

def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, v in enumerate(value):
            _flatten(f"{prefix}.{i}", v, out)
    elif value is not None:
        out[prefix] = value


def _any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any_value(v) for v in value]}}
    if isinstance(value, str):
        return {"stringValue": value}
    return {"stringValue": json.dumps(value, ensure_ascii=False, default=_plain)}


def _nanos(value: Any) -> str | None:
    if isinstance(value, datetime):
        stamp = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return str(int(stamp.timestamp() * 1_000_000) * 1000)
    if isinstance(value, str) and value:
        return _nanos(datetime.fromisoformat(value.replace("Z", "+00:00")))
    return None


def _events(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    out = []
    for e in value if isinstance(value, list) else []:
        if not isinstance(e, dict):
            continue
        attrs: dict[str, Any] = {}
        _flatten("", e.get("attributes") or {}, attrs)
        event = {"name": str(e.get("name") or ""), "attributes": [{"key": k, "value": _any_value(v)}
                                                                   for k, v in attrs.items()]}
        at = _nanos(e.get("timestamp"))
        if at:
            event["timeUnixNano"] = at
        out.append(event)
    return out


def phoenix_span(row: dict[str, Any]) -> dict[str, Any]:
    """One row of a Phoenix spans dataframe as an OTLP/JSON span."""
    attrs: dict[str, Any] = {}
    for column, value in row.items():
        if column.startswith(_ATTRIBUTE_PREFIX) and value is not None:
            _flatten(column[len(_ATTRIBUTE_PREFIX):], value, attrs)
    if row.get("span_kind") and "openinference.span.kind" not in attrs:
        attrs["openinference.span.kind"] = row["span_kind"]
    span: dict[str, Any] = {
        "traceId": row.get("context.trace_id"), "spanId": row.get("context.span_id"), "name": row.get("name") or "",
        "attributes": [{"key": k, "value": _any_value(v)} for k, v in attrs.items()],
        "status": {"code": _STATUS.get(str(row.get("status_code") or "UNSET").upper(), 0),
                   **({"message": row["status_message"]} if row.get("status_message") else {})},
    }
    if row.get("parent_id"):
        span["parentSpanId"] = row["parent_id"]
    for key, column in (("startTimeUnixNano", "start_time"), ("endTimeUnixNano", "end_time")):
        stamp = _nanos(row.get(column))
        if stamp:
            span[key] = stamp
    events = _events(row.get("events"))
    if events:
        span["events"] = events
    return span


def _phoenix_frames(pf: pq.ParquetFile, counter) -> Iterator[Frame]:
    line = 0
    for batch in pf.iter_batches(batch_size=SPANS_PER_REQUEST):
        spans = [phoenix_span(row) for row in batch.to_pylist()]
        line += 1
        request = {"resourceSpans": [{"resource": {"attributes": []},
                                      "scopeSpans": [{"scope": {"name": "phoenix trace dataset"}, "spans": spans}]}]}
        yield Frame(lines=[line], raws=[_dump(request)], bytes_read=counter.count)
