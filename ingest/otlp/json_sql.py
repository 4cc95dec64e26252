"""OTLP/JSON trace requests to `otel_spans` rows, in DuckDB (the decoder's connection).

Each request is parsed once, by `json_transform` into a typed structure that
names every field in both spellings (lowerCamelCase and snake_case); unnest
then walks resourceSpans -> scopeSpans -> spans, and every column of the row is
an SQL expression. Nothing of the span passes through Python.

What is accepted is what `spans.add_request` (the readable Python statement
of the same rules, kept as the reference of a differential test) accepts:
ids in hex or base64, enums as integers or names, 64-bit integers as strings
or numbers, every AnyValue kind. Arrays and kvlists (recursive, and rare) are
the one thing converted by a Python function, called only for those values.

A span whose ids, times or attribute values cannot be read is rejected with
its reason; the other spans of the request still load. A request whose
structure is not OTLP (resourceSpans, scopeSpans or spans that are not arrays)
is rejected as a whole, as the Python walk rejects it.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc

from trace_audit.ingest.otlp.spans import BadSpan, SPAN_KINDS, STATUS_CODES, _cut, any_value, dumps
from trace_audit.ingest.warehouse_types import arrow_schema

REQUESTS_PER_BATCH = 16

# ---- the typed structure a request is parsed into -----------------------------------------


def _both(camel: str, snake: str, typ) -> dict:
    return {camel: typ, snake: typ}


_ANY = {
    "stringValue": "VARCHAR", "string_value": "VARCHAR",
    **_both("boolValue", "bool_value", "JSON"), **_both("intValue", "int_value", "JSON"),
    **_both("doubleValue", "double_value", "JSON"), **_both("arrayValue", "array_value", "JSON"),
    **_both("kvlistValue", "kvlist_value", "JSON"), **_both("bytesValue", "bytes_value", "JSON"),
}
_ATTRS = [{"key": "VARCHAR", "value": _ANY}]
_SPAN = {
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
                 "spans": [_SPAN]}]
SCOPE_KEYS = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans")
_RESOURCE_SPANS = [{"resource": {"attributes": _ATTRS}, **{k: _SCOPE_SPANS for k in SCOPE_KEYS}}]
REQUEST = {"resourceSpans": _RESOURCE_SPANS, "resource_spans": _RESOURCE_SPANS}


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# ---- value expressions ----------------------------------------------------------------------

_INT_TEXT = r"'\s*[+-]?[0-9]+\s*'"


def _int_json(x: str) -> str:
    """A JSON integer (number or string, as int() reads it) as JSON text; NULL when not an integer."""
    s = f"json_extract_string({x}, '$')"
    return (f"(CASE json_type({x}) WHEN 'BIGINT' THEN CAST({x} AS VARCHAR) WHEN 'UBIGINT' THEN CAST({x} AS VARCHAR) "
            f"WHEN 'DOUBLE' THEN CAST(TRY_CAST(trunc(CAST({x} AS DOUBLE)) AS HUGEINT) AS VARCHAR) "
            f"WHEN 'VARCHAR' THEN CASE WHEN regexp_full_match({s}, {_INT_TEXT}) "
            f"THEN CAST(TRY_CAST(trim({s}) AS HUGEINT) AS VARCHAR) END END)")


def _double_json(x: str) -> str:
    """float() of a number or a string, as JSON text; NaN and infinities are null; NULL when unreadable."""
    d = (f"(CASE WHEN json_type({x}) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN CAST({x} AS DOUBLE) "
         f"WHEN json_type({x}) = 'VARCHAR' THEN TRY_CAST(trim(json_extract_string({x}, '$')) AS DOUBLE) END)")
    return f"(CASE WHEN isfinite({d}) THEN to_json({d}) WHEN {d} IS NOT NULL THEN 'null' END)"


def _bool_json(x: str) -> str:
    return (f"(CASE WHEN {x} IN ('true', 'false') THEN CAST({x} AS VARCHAR) "
            f"WHEN lower(json_extract_string({x}, '$')) = 'true' THEN 'true' ELSE 'false' END)")


def _value_json(v: str) -> str:
    """An AnyValue struct as the JSON text of its plain value; NULL for a value that cannot be read."""
    def c(name: str) -> str:
        camel, snake = name, "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)
        return f"coalesce({v}.{camel}, {v}.{snake})"
    return (f"(CASE WHEN {c('stringValue')} IS NOT NULL THEN to_json({c('stringValue')}) "
            f"WHEN {c('boolValue')} IS NOT NULL THEN {_bool_json(c('boolValue'))} "
            f"WHEN {c('intValue')} IS NOT NULL THEN {_int_json(c('intValue'))} "
            f"WHEN {c('doubleValue')} IS NOT NULL THEN {_double_json(c('doubleValue'))} "
            f"WHEN {c('arrayValue')} IS NOT NULL THEN otlp_nested_value('arrayValue', CAST({c('arrayValue')} AS VARCHAR)) "
            f"WHEN {c('kvlistValue')} IS NOT NULL THEN otlp_nested_value('kvlistValue', CAST({c('kvlistValue')} AS VARCHAR)) "
            f"WHEN {c('bytesValue')} IS NOT NULL THEN CAST({c('bytesValue')} AS VARCHAR) "
            f"ELSE 'null' END)")


def _pairs(attrs: str, var: str) -> str:
    """The attributes as a list of {k, v}: key and JSON text of the value (v NULL: unreadable)."""
    return (f"list_transform(list_filter({attrs}, lambda {var}: {var}.key IS NOT NULL), "
            f"lambda {var}: {{'k': {var}.key, 'v': {_value_json(var + '.value')}}})")


def _object(pairs: str, var: str) -> str:
    """One JSON object of the pairs; a key given twice keeps its last value (as a dict does)."""
    unique = (f"CASE WHEN len(list_distinct(list_transform({pairs}, lambda {var}: {var}.k))) = len({pairs}) "
              f"THEN {pairs} ELSE list_filter({pairs}, lambda {var}, i_: NOT list_contains("
              f"list_transform({pairs}[i_ + 1:], lambda q_: q_.k), {var}.k)) END")
    return (f"('{{' || coalesce(list_aggr(list_transform({unique}, lambda {var}: to_json({var}.k) || ':' || {var}.v), "
            f"'string_agg', ','), '') || '}}')")


def _bad_key(pairs: str, var: str) -> str:
    return f"list_filter({pairs}, lambda {var}: {var}.v IS NULL)[1].k"


def _int64(x: str) -> str:
    """int() of an int64 field sent as a string or a number (None for absent or ""), as BIGINT."""
    return (f"(CASE WHEN {x} IS NULL OR {x} = '' THEN NULL "
            f"WHEN regexp_full_match({x}, {_INT_TEXT}) THEN TRY_CAST(trim({x}) AS BIGINT) "
            f"ELSE TRY_CAST(trunc(TRY_CAST({x} AS DOUBLE)) AS BIGINT) END)")


def _int64_bad(x: str) -> str:
    return f"({x} IS NOT NULL AND {x} <> '' AND {_int64(x)} IS NULL)"


def _id_bytes(v: str, n: int) -> str:
    pad = f"repeat('=', (4 - length({v}) % 4) % 4)"
    return (f"(CASE WHEN {v} IS NULL OR {v} = '' THEN NULL "
            f"WHEN length({v}) = {2 * n} AND regexp_full_match({v}, '[0-9a-fA-F]+') THEN unhex({v}) "
            f"ELSE coalesce(try(from_base64({v})), try(from_base64(translate({v}, '-_', '+/') || {pad}))) END)")


def _id_problem(v: str, b: str, n: int, what: str) -> str:
    shown = f"'''' || left({v}, 40) || ''''"
    return (f"(CASE WHEN {v} IS NULL OR {v} = '' THEN NULL "
            f"WHEN {b} IS NULL THEN '{what} ' || {shown} || ' is neither hex nor base64' "
            f"WHEN octet_length({b}) <> {n} THEN '{what} ' || {shown} || ' is ' || octet_length({b}) "
            f"|| ' bytes, expected {n} (hex or base64)' "
            f"WHEN ltrim(hex({b}), '0') = '' THEN '{what} is all zeros (invalid in OTLP)' END)")


def _enum(x: str, names: dict[int, str], prefix: str, default: str) -> str:
    by_int = " ".join(f"WHEN {i} THEN '{name}'" for i, name in names.items())
    by_name = " ".join(f"WHEN '{prefix.upper()}{name.upper()}' THEN '{name}'" for name in names.values())
    return (f"(CASE WHEN {x} IS NULL OR {x} = '' THEN '{default}' "
            f"WHEN regexp_full_match({x}, '[0-9]+') THEN CASE TRY_CAST({x} AS BIGINT) {by_int} ELSE '{default}' END "
            f"ELSE CASE upper({x}) {by_name} ELSE regexp_replace(lower({x}), '^{prefix}', '') END END)")


def _us(ns: str) -> str:
    """Epoch microseconds (0 is unset: NULL); made a UTC timestamp in Arrow, whatever the session's time zone."""
    return f"(CASE WHEN coalesce({ns}, 0) = 0 THEN NULL ELSE {ns} // 1000 END)"


# ---- the statements -------------------------------------------------------------------------

_TRANSFORM = f"json_transform(raw, {_lit(json.dumps(REQUEST))})"

_SCOPE_SHAPE = [{"spans": ["BOOLEAN"]}]
_SHAPE = {k: [{s: _SCOPE_SHAPE for s in SCOPE_KEYS}] for k in ("resourceSpans", "resource_spans")}
"""Only the containers: what PROBLEMS needs to find a request whose structure is not OTLP."""

_SCOPES = "coalesce(" + ", ".join(f"rs.{k}" for k in SCOPE_KEYS) + ")"
_SCOPE_KEY = "CASE " + " ".join(f"WHEN rs.{k} IS NOT NULL THEN '{k}'" for k in SCOPE_KEYS) + " END"

_ev = "e_"
_events = (f"CASE WHEN len(s.events) > 0 THEN '[' || list_aggr(list_transform(s.events, lambda {_ev}: "
           f"'{{\"name\":' || coalesce(to_json({_ev}.name), 'null') || ',\"time_unix_nano\":' "
           f"|| coalesce(CAST({_int64(f'coalesce({_ev}.timeUnixNano, {_ev}.time_unix_nano)')} AS VARCHAR), 'null') "
           f"|| ',\"attributes\":' || {_object(_pairs(f'{_ev}.attributes', 'ea_'), 'eb_')} || '}}'), "
           f"'string_agg', ',') || ']' END")
_event_problem = (f"list_filter(list_transform(s.events, lambda {_ev}: CASE "
                  f"WHEN {_int64_bad(f'coalesce({_ev}.timeUnixNano, {_ev}.time_unix_nano)')} "
                  f"THEN 'an event time ''' || coalesce({_ev}.timeUnixNano, {_ev}.time_unix_nano) || ''' is not an integer' "
                  f"ELSE 'event attribute ''' || {_bad_key(_pairs(f'{_ev}.attributes', 'ea_'), 'eb_')} "
                  f"|| ''' has a value that cannot be read' END), lambda m_: m_ IS NOT NULL)[1]")

SPANS = f"""
WITH req AS (
  SELECT line, {_TRANSFORM} AS r FROM otlp_json_in
), rs AS (
  SELECT line, CASE WHEN r.resourceSpans IS NOT NULL THEN 'resourceSpans' ELSE 'resource_spans' END AS rk,
         unnest(coalesce(r.resourceSpans, r.resource_spans)) AS rs,
         generate_subscripts(coalesce(r.resourceSpans, r.resource_spans), 1) - 1 AS ri
  FROM req
), res AS (
  SELECT line, rk, ri, {_SCOPE_KEY} AS sk, {_SCOPES} AS scopes,
         {_object(_pairs('rs.resource.attributes', 'ra_'), 'rb_')} AS resource
  FROM rs
), ss AS (
  SELECT line, rk, ri, sk, resource, unnest(scopes) AS ss, generate_subscripts(scopes, 1) - 1 AS si FROM res
), sp AS (
  SELECT line, rk, ri, sk, si, resource,
         CASE WHEN ss.scope.name IS NOT NULL OR ss.scope.version IS NOT NULL THEN ss.scope
              ELSE coalesce(ss.instrumentationLibrary, ss.instrumentation_library) END AS scope,
         unnest(ss.spans) AS s, generate_subscripts(ss.spans, 1) - 1 AS pi
  FROM ss
), ids AS (
  SELECT *,
    coalesce(s.traceId, s.trace_id) AS t_v, coalesce(s.spanId, s.span_id) AS s_v,
    coalesce(s.parentSpanId, s.parent_span_id) AS p_v,
    coalesce(s.startTimeUnixNano, s.start_time_unix_nano) AS start_v,
    coalesce(s.endTimeUnixNano, s.end_time_unix_nano) AS end_v,
    {_pairs('s.attributes', 'sa_')} AS attrs
  FROM sp
), b AS (
  SELECT *, {_id_bytes('t_v', 16)} AS t_b, {_id_bytes('s_v', 8)} AS s_b, {_id_bytes('p_v', 8)} AS p_b FROM ids
)
SELECT
  lower(hex(t_b)) AS trace_id, lower(hex(s_b)) AS span_id, lower(hex(p_b)) AS parent_span_id,
  s.name AS name, {_enum('s.kind', SPAN_KINDS, 'span_kind_', 'unspecified')} AS kind,
  {_us(_int64('start_v'))} AS started_at, {_us(_int64('end_v'))} AS ended_at,
  {_enum('s.status.code', STATUS_CODES, 'status_code_', 'unset')} AS status_code,
  nullif(s.status.message, '') AS status_message,
  {_object('attrs', 'sb_')} AS attributes, resource,
  scope.name AS scope_name, scope.version AS scope_version,
  {_events} AS events,
  CAST(NULL AS VARCHAR) AS source_file, line AS source_line,
  coalesce({_id_problem('t_v', 't_b', 16, 'traceId')}, {_id_problem('s_v', 's_b', 8, 'spanId')},
           CASE WHEN t_b IS NULL OR s_b IS NULL THEN 'traceId and spanId are required' END,
           {_id_problem('p_v', 'p_b', 8, 'parentSpanId')},
           CASE WHEN {_int64_bad('start_v')} THEN 'startTimeUnixNano ''' || start_v || ''' is not an integer' END,
           CASE WHEN {_int64_bad('end_v')} THEN 'endTimeUnixNano ''' || end_v || ''' is not an integer' END,
           'attribute ''' || {_bad_key('attrs', 'sc_')} || ''' has a value that cannot be read',
           {_event_problem}) AS problem_,
  rk AS rk_, ri AS ri_, sk AS sk_, si AS si_, pi AS pi_
FROM b
"""

# Requests whose structure is not OTLP: a container that is present but not an array (or
# an entry that is not an object). Only containers that came out NULL are looked at again.
PROBLEMS = """
WITH shaped AS (
  SELECT line, json_transform(raw, """ + _lit(json.dumps(_SHAPE)) + """) AS r FROM otlp_json_in
), shape AS (
  SELECT line,
    list_transform(coalesce(r.resourceSpans, r.resource_spans), lambda x: x.scopeSpans IS NULL AND x.scope_spans IS NULL AND x.instrumentationLibrarySpans IS NULL AND x.instrumentation_library_spans IS NULL
      OR coalesce(list_aggr(list_transform(coalesce(x.scopeSpans, x.scope_spans, x.instrumentationLibrarySpans, x.instrumentation_library_spans),
                                           lambda y: y.spans IS NULL), 'bool_or'), false)) AS odd
  FROM shaped
), req AS (
  SELECT q.line, q.r, k.raw
  FROM shaped q JOIN otlp_json_in k USING (line) JOIN shape USING (line)
  WHERE odd IS NULL OR list_aggr(odd, 'bool_or')
), top AS (
  SELECT line, raw,
    CASE WHEN r.resourceSpans IS NULL AND r.resource_spans IS NULL THEN
      CASE WHEN coalesce(json_type(raw, '$.resourceSpans'), 'NULL') NOT IN ('NULL', 'ARRAY')
                OR coalesce(json_type(raw, '$.resource_spans'), 'NULL') NOT IN ('NULL', 'ARRAY')
           THEN 'resourceSpans must be a JSON array' ELSE 'no resourceSpans in this record' END END AS problem
  FROM req
), rs AS (
  SELECT line, raw, CASE WHEN r.resourceSpans IS NOT NULL THEN 'resourceSpans' ELSE 'resource_spans' END AS rk,
         unnest(coalesce(r.resourceSpans, r.resource_spans)) AS rs,
         generate_subscripts(coalesce(r.resourceSpans, r.resource_spans), 1) - 1 AS ri
  FROM req
), rs_problem AS (
  SELECT line, raw, rk, ri,
    CASE WHEN json_type(raw, '$.' || rk || '[' || ri || ']') <> 'OBJECT'
         THEN rk || '[' || ri || '] must be a JSON object'
         ELSE list_filter([""" + ", ".join(
    f"CASE WHEN coalesce(json_type(raw, '$.' || rk || '[' || ri || '].{k}'), 'NULL') NOT IN ('NULL', 'ARRAY') "
    f"THEN rk || '[' || ri || '].{k} must be a JSON array' END" for k in SCOPE_KEYS) + """],
                          lambda m: m IS NOT NULL)[1] END AS problem
  FROM rs WHERE """ + " AND ".join(f"rs.{k} IS NULL" for k in SCOPE_KEYS) + """
), ss AS (
  SELECT line, raw, rk, ri, """ + _SCOPE_KEY + """ AS sk, unnest(""" + _SCOPES + """) AS ss,
         generate_subscripts(""" + _SCOPES + """, 1) - 1 AS si
  FROM rs
), ss_problem AS (
  SELECT line, rk || '[' || ri || '].' || sk || '[' || si || ']' AS where_,
    CASE WHEN json_type(raw, '$.' || rk || '[' || ri || '].' || sk || '[' || si || ']') <> 'OBJECT'
         THEN 'must be a JSON object'
         WHEN coalesce(json_type(raw, '$.' || rk || '[' || ri || '].' || sk || '[' || si || '].spans'), 'NULL')
              NOT IN ('NULL', 'ARRAY') THEN '.spans must be a JSON array' END AS problem
  FROM ss WHERE ss.spans IS NULL
)
SELECT line, problem FROM top WHERE problem IS NOT NULL
UNION ALL SELECT line, problem FROM rs_problem WHERE problem IS NOT NULL
UNION ALL SELECT line, where_ || CASE WHEN starts_with(problem, '.') THEN '' ELSE ' ' END || problem
  FROM ss_problem WHERE problem IS NOT NULL
"""


def _span_path(rk: str, ri: int, sk: str, si: int, pi: int) -> str:
    return f"$.{rk}[{ri}].{sk}[{si}].spans[{pi}]"


# ---- the nested AnyValues, in Python -------------------------------------------------------


def _nested_value(kind: str, text: str | None) -> str | None:
    """arrayValue / kvlistValue (recursive) to the JSON text of the plain value; None if unreadable."""
    if text is None:
        return None
    try:
        return dumps(any_value({kind: json.loads(text)}))
    except (BadSpan, ValueError, TypeError, AttributeError, RecursionError):
        return None


def _ensure_udf(con) -> None:
    known = con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'otlp_nested_value'").fetchall()
    if not known[0][0]:
        con.create_function("otlp_nested_value", _nested_value, ["VARCHAR", "VARCHAR"], "VARCHAR",
                            null_handling="special", side_effects=False)


def decode_requests(con) -> tuple[pa.Table, list[tuple[int, str, str]]]:
    """The spans of the requests in relation `kind_in(line, raw, ...)`: (otel_spans rows, errors)."""
    _ensure_udf(con)
    errors: list[tuple[int, str, str]] = []
    schema = arrow_schema("otel_spans")
    # The decoder hands over a frame as one batch when it has few records (a request
    # per line is big): split it so that DuckDB parses requests on every thread.
    requests = con.sql("SELECT line, raw FROM kind_in").to_arrow_table()
    con.register("otlp_json_in", pa.Table.from_batches(requests.to_batches(max_chunksize=REQUESTS_PER_BATCH)))
    try:
        bad_lines: dict[int, str] = {}
        for line, problem in con.execute(PROBLEMS).fetchall():
            bad_lines.setdefault(line, problem)
        rows = con.sql(SPANS).to_arrow_table()
    finally:
        con.unregister("otlp_json_in")
    del requests
    if bad_lines:
        lines = pa.array(sorted(bad_lines), pa.int64())
        rows = rows.filter(pc.invert(pc.is_in(rows.column("source_line"), value_set=lines)))
        raws = dict(con.execute("SELECT line, raw FROM kind_in WHERE list_contains(?, line)",
                                [sorted(bad_lines)]).fetchall())
        for line, problem in bad_lines.items():
            errors.append((line, raws.get(line, "")[:2000], f"OTLP trace request could not be read: {problem}"))
    problems = rows.column("problem_")
    if problems.null_count < rows.num_rows:
        rejected = rows.filter(pc.is_valid(problems))
        errors.extend(_rejected_spans(con, rejected))
        rows = rows.filter(pc.is_null(problems))
    rows = rows.select(schema.names)
    for name in ("started_at", "ended_at"):  # int64 microseconds to UTC timestamps, exactly
        i = schema.get_field_index(name)
        rows = rows.set_column(i, name, rows.column(i).cast(pa.timestamp("us")).cast(schema.field(name).type))
    return rows.cast(schema), errors


def _rejected_spans(con, rejected: pa.Table) -> list[tuple[int, str, str]]:
    """(line, the span's own JSON text, reason) per rejected span, read back in one query."""
    spans = rejected.select(["source_line", "rk_", "ri_", "sk_", "si_", "pi_", "problem_"]).to_pylist()
    wanted = pa.table({
        "i": pa.array(range(len(spans)), pa.int64()),
        "line": pa.array([r["source_line"] for r in spans], pa.int64()),
        "path": pa.array([_span_path(r["rk_"], r["ri_"], r["sk_"], r["si_"], r["pi_"]) for r in spans]),
    })
    con.register("otlp_rejected_in", wanted)
    try:
        texts = dict(con.execute("SELECT w.i, json_extract(k.raw, w.path) FROM otlp_rejected_in w "
                                 "JOIN kind_in k ON k.line = w.line").fetchall())
    finally:
        con.unregister("otlp_rejected_in")
    return [(r["source_line"], _cut(json.loads(texts[i])) if texts.get(i) else "", f"span rejected: {r['problem_']}")
            for i, r in enumerate(spans)]
