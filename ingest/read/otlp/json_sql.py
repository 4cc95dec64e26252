"""OTLP/JSON trace requests to `otel_spans` rows, in DuckDB (the decoder's connection).

Each request is parsed once (on the common path), by `json_transform` into a typed structure; unnest
then walks resourceSpans -> scopeSpans -> spans, and every column of the row is
an SQL expression. Nothing of the span passes through Python. The structure
first read names the lowerCamelCase fields only (what the OTLP/JSON rule and
the Collector write): picking between two spellings of a container copies all
it holds. A request that spells anything in snake_case, or gives no row, is
read again with the full structure, which names every field in both spellings.

What is accepted is what `spans.add_request` (the readable Python statement
of the same rules, kept as the reference of a differential test) accepts:
ids in hex or base64, enums as integers or names, 64-bit integers as strings
or numbers, every AnyValue kind. Arrays and kvlists (recursive, and rare) are
the one thing converted by a Python function, called only for those values.

A span whose ids, times or attribute values cannot be read is rejected with
its reason; the other spans of the request still load. A request whose
structure is not OTLP (resourceSpans, scopeSpans or spans that are not arrays)
is rejected as a whole, as the Python walk rejects it.

Speed: the one query every span goes through (SPANS) only builds the row and a
flag `ok_`; the words of a rejection (REJECTED) and the structure checks
(PROBLEMS) run afterwards, for the few spans and requests that need them.
An attribute object is built in one pass over the attribute list (see
`_entries`), and repeated keys are looked for only where `list_unique` says so.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc

from .spans import BadSpan, SPAN_KINDS, STATUS_CODES, _cut, any_value, dumps
from ..base import registered
from .json_structure import SPAN, SCOPE_KEYS, REQUEST, LEAN_REQUEST, RESOURCE_SPANS_OF, RESOURCE_KEY_OF
from .json_values_sql import (_lit, _INT_TEXT, BAD, SLOW, _int_json, _double_json, _bool_json, _KINDS, _snake, _value_json, _entries, _keys, _unique, _object, _all_entries, _int64, _int64_bad, _id_hex, _id_ok, _enum, _us)
from ....queries.warehouse.types import arrow_schema


def _first(struct: str, keys: tuple[str, ...]) -> str:
    fields = [f"{struct}.{k}" for k in keys]
    return fields[0] if len(fields) == 1 else f"coalesce({', '.join(fields)})"


def _scope_key(scope_keys: tuple[str, ...]) -> str:
    """Which spelling of the scope container a resourceSpans entry `rs` used."""
    return "CASE " + " ".join(f"WHEN rs.{k} IS NOT NULL THEN '{k}'" for k in scope_keys) + " END"


def _odd(resource_spans: str, scope_keys: tuple[str, ...]) -> str:
    """Whether a container of the request came out NULL (absent, or not an array): PROBLEMS must look."""
    per_rs = (f"list_transform({resource_spans}, lambda x: " + " AND ".join(f"x.{k} IS NULL" for k in scope_keys)
              + f" OR coalesce(list_aggr(list_transform({_first('x', scope_keys)}, lambda y: y.spans IS NULL), 'bool_or'), false))")
    return f"coalesce({per_rs} IS NULL OR list_aggr({per_rs}, 'bool_or'), false)"


def _spans(lean: bool) -> str:
    """The rows of the spans in `otlp_json_in`, with ok_ (false: the span is rejected;
    REJECTED says why), odd_ (PROBLEMS must look at the request) and slow_ (see LEAN_REQUEST)."""
    if lean:
        transform = f"json_transform(raw, {_lit(json.dumps(LEAN_REQUEST))})"
        others = " OR ".join(f"x.{k} IS NOT NULL" for k in SCOPE_KEYS[1:])
        slow = (f"r.resource_spans IS NOT NULL "
                f"OR coalesce(list_aggr(list_transform(r.resourceSpans, lambda x: {others}), 'bool_or'), false)")
        resource_spans, rk, scope_keys = "r.resourceSpans", "'resourceSpans'", SCOPE_KEYS[:1]
    else:
        transform = f"json_transform(raw, {_lit(json.dumps(REQUEST))})"
        slow = "false"
        resource_spans, rk = RESOURCE_SPANS_OF, RESOURCE_KEY_OF
        scope_keys = SCOPE_KEYS
    sk = _scope_key(scope_keys)
    ev = "e_"
    event_parts = (f"CASE WHEN len(s.events) > 0 THEN list_transform(s.events, lambda {ev}: {{'n': {ev}.name, "
                   f"'t': coalesce({ev}.timeUnixNano, {ev}.time_unix_nano), "
                   f"'e': {_entries(f'{ev}.attributes', 'ea_', BAD, lean)}, 'k': {_keys(f'{ev}.attributes', 'ek_')}}}) END")
    events = (f"'[' || list_aggr(list_transform(ev, lambda {ev}: "
              f"'{{\"name\":' || coalesce(to_json({ev}.n), 'null') || ',\"time_unix_nano\":' "
              f"|| coalesce(CAST({_int64(f'{ev}.t')} AS VARCHAR), CASE WHEN nullif({ev}.t, '') IS NULL THEN 'null' ELSE {BAD} END) "
              f"|| ',\"attributes\":' || {_object(f'{ev}.e', f'{ev}.k', _unique(f'{ev}.k'), 'eb_')} || '}}'), "
              f"'string_agg', ',') || ']'")
    event_entries = f"list_aggr(list_transform(ev, lambda {ev}: {_all_entries(f'{ev}.e')}), 'string_agg', ',')"
    return f"""
WITH req AS (
  SELECT line, {transform} AS r FROM otlp_json_in
), rq AS (
  SELECT line, r, {slow} AS slow, {_odd(resource_spans, scope_keys)} AS odd FROM req
), rs AS (
  SELECT line, slow, odd, {rk} AS rk, unnest({resource_spans}) AS rs, generate_subscripts({resource_spans}, 1) - 1 AS ri
  FROM rq
), res AS (
  SELECT line, slow, odd, rk, ri, {sk} AS sk, {_first('rs', scope_keys)} AS scopes,
         {_entries('rs.resource.attributes', 'ra_', None, lean)} AS r_e, {_keys('rs.resource.attributes', 'rk_')} AS r_k
  FROM rs
), res2 AS (
  SELECT *, {_unique('r_k')} AS r_u FROM res
), ss AS (
  SELECT line, odd, rk, ri, sk, {_object('r_e', 'r_k', 'r_u', 'rb_')} AS resource,
         slow OR coalesce(contains(CASE WHEN r_u THEN resource ELSE {_all_entries('r_e')} END, {SLOW}), false) AS slow,
         unnest(scopes) AS ss, generate_subscripts(scopes, 1) - 1 AS si
  FROM res2
), sp AS (
  SELECT line, slow, odd, rk, ri, sk, si, resource,
         CASE WHEN ss.scope.name IS NOT NULL OR ss.scope.version IS NOT NULL THEN ss.scope
              ELSE coalesce(ss.instrumentationLibrary, ss.instrumentation_library) END AS scope,
         unnest(ss.spans) AS s, generate_subscripts(ss.spans, 1) - 1 AS pi
  FROM ss
), f AS (
  SELECT line, slow, odd, rk, ri, sk, si, pi, resource, scope, s,
    coalesce(s.parentSpanId, s.parent_span_id) AS p_v,
    coalesce(s.startTimeUnixNano, s.start_time_unix_nano) AS start_v,
    coalesce(s.endTimeUnixNano, s.end_time_unix_nano) AS end_v,
    {_id_hex('coalesce(s.traceId, s.trace_id)', 16)} AS trace_id,
    {_id_hex('coalesce(s.spanId, s.span_id)', 8)} AS span_id,
    {_entries('s.attributes', 'sa_', BAD, lean)} AS a_e, {_keys('s.attributes', 'sk_')} AS a_k,
    {event_parts} AS ev
  FROM sp
), g AS (
  SELECT *, {_id_hex('p_v', 8)} AS parent_span_id, {_int64('start_v')} AS start_n, {_int64('end_v')} AS end_n,
         {_unique('a_k')} AS a_u,
         CASE WHEN ev IS NOT NULL THEN {events} END AS events, CASE WHEN ev IS NOT NULL THEN {event_entries} END AS ev_all
  FROM f
), h AS (
  SELECT *, {_object('a_e', 'a_k', 'a_u', 'sb_')} AS attributes,
         CASE WHEN NOT a_u THEN {_all_entries('a_e')} END AS a_all
  FROM g
)
SELECT
  trace_id, span_id, parent_span_id,
  s.name AS name, {_enum('s.kind', SPAN_KINDS, 'span_kind_', 'unspecified')} AS kind,
  {_us('start_n')} AS started_at, {_us('end_n')} AS ended_at,
  {_enum('s.status.code', STATUS_CODES, 'status_code_', 'unset')} AS status_code,
  nullif(s.status.message, '') AS status_message,
  attributes, resource, scope.name AS scope_name, scope.version AS scope_version, events,
  CAST(NULL AS VARCHAR) AS source_file, line AS source_line,
  coalesce({_id_ok('trace_id', 16)} AND {_id_ok('span_id', 8)}
           AND (nullif(p_v, '') IS NULL OR {_id_ok('parent_span_id', 8)})
           AND (start_n IS NOT NULL OR nullif(start_v, '') IS NULL)
           AND (end_n IS NOT NULL OR nullif(end_v, '') IS NULL)
           AND NOT contains(attributes, {BAD}) AND NOT coalesce(contains(a_all, {BAD}), false)
           AND NOT coalesce(contains(events, {BAD}) OR contains(ev_all, {BAD}), false), false) AS ok_,
  odd AS odd_,
  slow OR contains(attributes, {SLOW}) OR coalesce(contains(a_all, {SLOW}) OR contains(ev_all, {SLOW}), false) AS slow_,
  rk AS rk_, ri AS ri_, sk AS sk_, si AS si_, pi AS pi_
FROM h
"""


SPANS = _spans(lean=True)
FULL_SPANS = _spans(lean=False)

# ---- why a span is rejected: run only for the spans SPANS did not find ok -------------------


def _pairs(attrs: str, var: str) -> str:
    """The attributes as a list of {k, v}: key and JSON text of the value (v NULL: unreadable)."""
    return (f"list_transform(list_filter({attrs}, lambda {var}: {var}.key IS NOT NULL), "
            f"lambda {var}: {{'k': {var}.key, 'v': {_value_json(var + '.value')}}})")


def _bad_key(pairs: str, var: str) -> str:
    return f"list_filter({pairs}, lambda {var}: {var}.v IS NULL)[1].k"


def _id_problem(v: str, h: str, n: int, what: str) -> str:
    """Why the id text `v` is not an id of n bytes, given `h`, its `_id_hex`; NULL when it is one or is absent."""
    shown = f"'''' || left({v}, 40) || ''''"
    return (f"(CASE WHEN {v} IS NULL OR {v} = '' THEN NULL "
            f"WHEN {h} IS NULL THEN '{what} ' || {shown} || ' is neither hex nor base64' "
            f"WHEN length({h}) <> {2 * n} THEN '{what} ' || {shown} || ' is ' || (length({h}) // 2) "
            f"|| ' bytes, expected {n} (hex or base64)' "
            f"WHEN ltrim({h}, '0') = '' THEN '{what} is all zeros (invalid in OTLP)' END)")


_ev = "e_"
_event_problem = (f"list_filter(list_transform(s.events, lambda {_ev}: CASE "
                  f"WHEN {_int64_bad(f'coalesce({_ev}.timeUnixNano, {_ev}.time_unix_nano)')} "
                  f"THEN 'an event time ''' || coalesce({_ev}.timeUnixNano, {_ev}.time_unix_nano) || ''' is not an integer' "
                  f"ELSE 'event attribute ''' || {_bad_key(_pairs(f'{_ev}.attributes', 'ea_'), 'eb_')} "
                  f"|| ''' has a value that cannot be read' END), lambda m_: m_ IS NOT NULL)[1]")

# (i, the span's own JSON text, why it is rejected) for the spans in `otlp_rejected_in(i, line, path)`.
REJECTED = f"""
WITH sp AS (
  SELECT w.i, json_extract(k.raw, w.path) AS text FROM otlp_rejected_in w JOIN otlp_json_in k ON k.line = w.line
), ids AS (
  SELECT i, text, s,
    coalesce(s.traceId, s.trace_id) AS t_v, coalesce(s.spanId, s.span_id) AS s_v,
    coalesce(s.parentSpanId, s.parent_span_id) AS p_v,
    coalesce(s.startTimeUnixNano, s.start_time_unix_nano) AS start_v,
    coalesce(s.endTimeUnixNano, s.end_time_unix_nano) AS end_v,
    {_pairs('s.attributes', 'sa_')} AS attrs
  FROM (SELECT i, text, json_transform(text, {_lit(json.dumps(SPAN))}) AS s FROM sp)
), b AS (
  SELECT *, {_id_hex('t_v', 16)} AS t_h, {_id_hex('s_v', 8)} AS s_h, {_id_hex('p_v', 8)} AS p_h FROM ids
)
SELECT i, CAST(text AS VARCHAR) AS text,
  coalesce({_id_problem('t_v', 't_h', 16, 'traceId')}, {_id_problem('s_v', 's_h', 8, 'spanId')},
           CASE WHEN t_h IS NULL OR s_h IS NULL THEN 'traceId and spanId are required' END,
           {_id_problem('p_v', 'p_h', 8, 'parentSpanId')},
           CASE WHEN {_int64_bad('start_v')} THEN 'startTimeUnixNano ''' || start_v || ''' is not an integer' END,
           CASE WHEN {_int64_bad('end_v')} THEN 'endTimeUnixNano ''' || end_v || ''' is not an integer' END,
           'attribute ''' || {_bad_key('attrs', 'sc_')} || ''' has a value that cannot be read',
           {_event_problem}) AS reason
FROM b
"""

# ---- requests whose structure is not OTLP: run only for requests SPANS found odd ------------

_SCOPE_SHAPE = [{"spans": ["BOOLEAN"]}]
_SHAPE = {k: [{s: _SCOPE_SHAPE for s in SCOPE_KEYS}] for k in ("resourceSpans", "resource_spans")}
"""Only the containers: what PROBLEMS needs to find a request whose structure is not OTLP."""

# A container that is present but not an array (or an entry that is not an object).
# Only containers that came out NULL are looked at again.
PROBLEMS = """
WITH req AS (
  SELECT line, raw, r FROM (
    SELECT line, raw, json_transform(raw, """ + _lit(json.dumps(_SHAPE)) + """) AS r FROM otlp_json_in)
  WHERE """ + _odd(RESOURCE_SPANS_OF, SCOPE_KEYS) + """
), top AS (
  SELECT line, raw,
    CASE WHEN r.resourceSpans IS NULL AND r.resource_spans IS NULL THEN
      CASE WHEN coalesce(json_type(raw, '$.resourceSpans'), 'NULL') NOT IN ('NULL', 'ARRAY')
                OR coalesce(json_type(raw, '$.resource_spans'), 'NULL') NOT IN ('NULL', 'ARRAY')
           THEN 'resourceSpans must be a JSON array' ELSE 'no resourceSpans in this record' END END AS problem
  FROM req
), rs AS (
  SELECT line, raw, """ + RESOURCE_KEY_OF + """ AS rk,
         unnest(""" + RESOURCE_SPANS_OF + """) AS rs,
         generate_subscripts(""" + RESOURCE_SPANS_OF + """, 1) - 1 AS ri
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
  SELECT line, raw, rk, ri, """ + _scope_key(SCOPE_KEYS) + """ AS sk, unnest(""" + _first("rs", SCOPE_KEYS) + """) AS ss,
         generate_subscripts(""" + _first("rs", SCOPE_KEYS) + """, 1) - 1 AS si
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


_VIEWS = {"otlp_lean_spans": SPANS, "otlp_full_spans": FULL_SPANS}


def _prepare(con) -> None:
    # duckdb_functions() lists every function (about 12 ms): asked only when a view is made.
    known = con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'otlp_nested_value'").fetchall()
    if not known[0][0]:
        con.create_function("otlp_nested_value", _nested_value, ["VARCHAR", "VARCHAR"], "VARCHAR",
                            null_handling="special", side_effects=False)


def _view(con, name: str) -> str:
    """A span query as a temp view: parsed once per connection, not once per frame (the
    full one is made only for the first request that needs it). The Python function the
    views call is registered with the first one; REJECTED, which calls it too, runs only
    after the lean view."""
    made = con.execute("SELECT count(*) FROM duckdb_views() WHERE temporary AND view_name = ?", [name]).fetchall()
    if not made[0][0]:
        _prepare(con)
        con.execute(f"CREATE TEMP VIEW {name} AS {_VIEWS[name]}")
    return name


def decode_requests(con, requests: pa.Table) -> tuple[pa.Table, list[tuple[int, str, str]]]:
    """The spans of `requests` (line, raw, ...; its record batches are what DuckDB's threads
    take): (otel_spans rows, errors)."""
    errors: list[tuple[int, str, str]] = []
    schema = arrow_schema("otel_spans")
    requests = requests.select(["line", "raw"])
    rows = _spans_of(con, "otlp_lean_spans", requests)
    # Requests with another spelling of a container, and requests that gave no row (a
    # container of theirs may have another spelling), are read again with every spelling.
    again = _flagged(requests, rows, "slow_")
    if pc.any(again).as_py():
        again_lines = requests.filter(again).column("line")
        rows = pa.concat_tables([
            rows.filter(pc.invert(pc.is_in(rows.column("source_line"), value_set=again_lines))),
            _spans_of(con, "otlp_full_spans", requests.filter(again))])
        # Back in the order of the requests (each request's rows came whole from one query).
        order = pc.index_in(rows.column("source_line"), value_set=requests.column("line"))
        rows = rows.take(pc.sort_indices(pa.table({"o": order}), sort_keys=[("o", "ascending")]))
    bad_lines = _malformed_requests(con, requests, rows)
    if bad_lines:
        bad = pa.array(sorted(bad_lines), pa.int64())
        rows = rows.filter(pc.invert(pc.is_in(rows.column("source_line"), value_set=bad)))
        bad_requests = requests.filter(pc.is_in(requests.column("line"), value_set=bad))
        raws = dict(zip(bad_requests.column("line").to_pylist(), bad_requests.column("raw").to_pylist()))
        for line, problem in bad_lines.items():
            errors.append((line, raws.get(line, "")[:2000], f"OTLP trace request could not be read: {problem}"))
    ok = rows.column("ok_")
    if not pc.all(ok).as_py():
        errors.extend(_rejected_spans(con, requests, rows.filter(pc.invert(ok))))
        rows = rows.filter(ok)
    rows = rows.select(schema.names)
    for name in ("started_at", "ended_at"):  # int64 microseconds to UTC timestamps, exactly
        i = schema.get_field_index(name)
        rows = rows.set_column(i, name, rows.column(i).cast(pa.timestamp("us")).cast(schema.field(name).type))
    return rows.cast(schema), errors


def _flagged(requests: pa.Table, rows: pa.Table, flag: str) -> pa.Array:
    """Per request: a row of it has `flag` set, or it gave no row at all (so no row could carry the flag)."""
    lines = requests.column("line")
    return pc.or_(pc.is_in(lines, value_set=pc.unique(rows.filter(rows.column(flag)).column("source_line"))),
                  pc.invert(pc.is_in(lines, value_set=pc.unique(rows.column("source_line")))))


def _spans_of(con, view: str, requests: pa.Table) -> pa.Table:
    with registered(con, "otlp_json_in", requests):
        return con.sql(f"SELECT * FROM {_view(con, view)}").to_arrow_table()


def _malformed_requests(con, requests: pa.Table, rows: pa.Table) -> dict[int, str]:
    """line -> why, for requests whose structure is not OTLP.

    Only a request with a container that came out NULL can be one: those SPANS marked
    odd, and those that gave no span row at all (their mark had no row to ride on).
    """
    suspect = _flagged(requests, rows, "odd_")
    if not pc.any(suspect).as_py():
        return {}
    bad_lines: dict[int, str] = {}
    with registered(con, "otlp_json_in", requests.filter(suspect)):
        for line, problem in con.execute(PROBLEMS).fetchall():
            bad_lines.setdefault(line, problem)
    return bad_lines


def _rejected_spans(con, requests: pa.Table, rejected: pa.Table) -> list[tuple[int, str, str]]:
    """(line, the span's own JSON text, reason) per rejected span, found again in one query."""
    spans = rejected.select(["source_line", "rk_", "ri_", "sk_", "si_", "pi_"]).to_pylist()
    wanted = pa.table({
        "i": pa.array(range(len(spans)), pa.int64()),
        "line": pa.array([r["source_line"] for r in spans], pa.int64()),
        "path": pa.array([_span_path(r["rk_"], r["ri_"], r["sk_"], r["si_"], r["pi_"]) for r in spans]),
    })
    with registered(con, "otlp_rejected_in", wanted), registered(con, "otlp_json_in", requests):
        found = {i: (text, reason) for i, text, reason in con.execute(REJECTED).fetchall()}
    out = []
    for i, r in enumerate(spans):
        text, reason = found.get(i, (None, None))
        out.append((r["source_line"], _cut(json.loads(text)) if text else "", f"span rejected: {reason}"))
    return out
