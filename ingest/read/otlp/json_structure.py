"""The typed structure an OTLP/JSON trace request is parsed into (`json_transform`): every
field in lowerCamelCase and snake_case, and the lean structure of the common path that names
the lowerCamelCase containers only. Read by the span queries of `json_sql.py`."""

from __future__ import annotations


def _both(camel: str, snake: str, typ) -> dict:
    return {camel: typ, snake: typ}


_ANY = {
    "stringValue": "VARCHAR", "string_value": "VARCHAR",
    **_both("boolValue", "bool_value", "JSON"), **_both("intValue", "int_value", "JSON"),
    **_both("doubleValue", "double_value", "JSON"), **_both("arrayValue", "array_value", "JSON"),
    **_both("kvlistValue", "kvlist_value", "JSON"), **_both("bytesValue", "bytes_value", "JSON"),
}
_ATTRS = [{"key": "VARCHAR", "value": _ANY}]
SPAN = {
    **_both("traceId", "trace_id", "VARCHAR"), **_both("spanId", "span_id", "VARCHAR"),
    **_both("parentSpanId", "parent_span_id", "VARCHAR"),
    "name": "VARCHAR", "kind": "VARCHAR",
    **_both("startTimeUnixNano", "start_time_unix_nano", "VARCHAR"),
    **_both("endTimeUnixNano", "end_time_unix_nano", "VARCHAR"),
    "attributes": _ATTRS,
    "status": {"code": "VARCHAR", "message": "VARCHAR"},
    "events": [{"name": "VARCHAR", **_both("timeUnixNano", "time_unix_nano", "VARCHAR"), "attributes": _ATTRS}],
}
_SCOPE = {"name": "VARCHAR", "version": "VARCHAR"}
_SCOPE_SPANS = [{"scope": _SCOPE, **_both("instrumentationLibrary", "instrumentation_library", _SCOPE),
                 "spans": [SPAN]}]
SCOPE_KEYS = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans")
_RESOURCE_SPANS = [{"resource": {"attributes": _ATTRS}, **{k: _SCOPE_SPANS for k in SCOPE_KEYS}}]
REQUEST = {"resourceSpans": _RESOURCE_SPANS, "resource_spans": _RESOURCE_SPANS}


# Producers nearly all write lowerCamelCase containers (resourceSpans, scopeSpans). Picking
# one of several spellings of a container with coalesce copies all it holds, and the full
# structure is eight times the size to plan: so SPANS reads that one spelling and keeps
# the others as unparsed JSON only to see whether they are there. A request that has one
# (`slow_`) is read again, alone, by FULL_SPANS, which knows every spelling.
_LEAN_RS = [{"resource": {"attributes": _ATTRS}, "scopeSpans": [_SCOPE_SPANS[0]],
             **{k: "JSON" for k in SCOPE_KEYS[1:]}}]
LEAN_REQUEST = {"resourceSpans": _LEAN_RS, "resource_spans": "JSON"}

# A request `r` read with every spelling: its resourceSpans, and the key they came under.
RESOURCE_SPANS_OF = "coalesce(r.resourceSpans, r.resource_spans)"
RESOURCE_KEY_OF = "CASE WHEN r.resourceSpans IS NOT NULL THEN 'resourceSpans' ELSE 'resource_spans' END"
