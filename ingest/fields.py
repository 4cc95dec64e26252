"""Field mappings as data, compiled into one vectorised SQL query per record kind.

A `Field` says which input keys feed a warehouse column, what type it must
have, and whether the record is useless without it. `compile_select` turns a
list of them into a DuckDB SELECT that, for every input record at once,
extracts all keys with a single JSON parse, converts each value leniently
(ids as numbers or strings, booleans as 0/1, MySQL naive times, epoch
seconds, JSON held in an escaped string) and writes a `reason` naming every
field that could not be read ("field seq: expected integer, got 'abc'").
Records with a reason go to quarantine whole; the rest load.
"""

from __future__ import annotations

from dataclasses import dataclass

# Conversions a field can ask for.
STR, INT, BOOL, TS, JSON, JSON_TEXT, STATUS_TASK, STATUS_STEP = (
    "str", "int", "bool", "ts", "json", "json_text", "task_status", "step_status",
)


@dataclass(frozen=True)
class Field:
    column: str
    kind: str
    keys: tuple[str, ...] = ()       # input keys, first present wins; default: (column,)
    required: bool = False

    @property
    def input_keys(self) -> tuple[str, ...]:
        return self.keys or (self.column,)


def _quote_path(key: str) -> str:
    return "$." + '"' + key.replace('"', '\\"') + '"'


def sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _shown(v: str) -> str:
    # The offending value as the user wrote it, cut short for the message.
    return f"left(CASE WHEN json_type({v}) = 'VARCHAR' THEN {v} ->> '$' ELSE CAST({v} AS VARCHAR) END, 60)"


_TASK_STATUS = """CASE
  WHEN {s} IS NULL THEN NULL
  WHEN lower(trim({s})) IN ('success','succeeded','successful','ok','done','completed','complete','finished') THEN 'success'
  WHEN lower(trim({s})) IN ('partial','partially_succeeded','partial_success') THEN 'partial'
  WHEN lower(trim({s})) IN ('failed','fail','failure','error','errored','aborted','cancelled','canceled') THEN 'failed'
  WHEN lower(trim({s})) IN ('running','in_progress','pending','started','executing','processing') THEN 'running'
  ELSE 'unknown' END"""

_STEP_STATUS = """CASE
  WHEN {s} IS NULL THEN NULL
  WHEN lower(trim({s})) IN ('success','succeeded','successful','ok','done','completed','complete','finished') THEN 'success'
  WHEN lower(trim({s})) IN ('failed','fail','failure','error','errored','aborted','cancelled','canceled','timeout') THEN 'failed'
  WHEN lower(trim({s})) IN ('running','in_progress','pending','started','executing','processing') THEN 'running'
  ELSE 'unknown' END"""


def _value_and_check(field: Field, v: str) -> tuple[str, str | None]:
    """SQL for the converted value of JSON fragment `v`, and SQL for its error text (or None)."""
    jt = f"json_type({v})"
    present = f"({v} IS NOT NULL AND {jt} <> 'NULL')"
    as_text = f"CASE WHEN {jt} = 'VARCHAR' THEN {v} ->> '$' WHEN {jt} = 'NULL' THEN NULL ELSE CAST({v} AS VARCHAR) END"
    name = field.column if field.input_keys == (field.column,) else field.input_keys[0]
    if field.kind == STR:
        return as_text, None
    if field.kind in (STATUS_TASK, STATUS_STEP):
        template = _TASK_STATUS if field.kind == STATUS_TASK else _STEP_STATUS
        return template.format(s=f"({as_text})"), None
    if field.kind == INT:
        value = (
            f"CASE WHEN {jt} IN ('BIGINT','UBIGINT') THEN TRY_CAST({v} AS BIGINT) "
            f"WHEN {jt} = 'DOUBLE' AND TRY_CAST({v} AS DOUBLE) = floor(TRY_CAST({v} AS DOUBLE)) THEN TRY_CAST(TRY_CAST({v} AS DOUBLE) AS BIGINT) "
            f"WHEN {jt} = 'VARCHAR' THEN TRY_CAST(trim({v} ->> '$') AS BIGINT) END"
        )
        check = f"CASE WHEN {present} AND ({value}) IS NULL THEN 'field {name}: expected integer, got ''' || {_shown(v)} || '''' END"
        return value, check
    if field.kind == BOOL:
        value = (
            f"CASE WHEN {jt} = 'BOOLEAN' THEN CAST({v} AS BOOLEAN) "
            f"WHEN {jt} IN ('BIGINT','UBIGINT') THEN TRY_CAST({v} AS BIGINT) <> 0 "
            f"WHEN {jt} = 'VARCHAR' THEN CASE WHEN lower(trim({v} ->> '$')) IN ('true','t','1','yes','y') THEN TRUE "
            f"WHEN lower(trim({v} ->> '$')) IN ('false','f','0','no','n') THEN FALSE END END"
        )
        check = f"CASE WHEN {present} AND ({value}) IS NULL THEN 'field {name}: expected true/false or 1/0, got ''' || {_shown(v)} || '''' END"
        return value, check
    if field.kind == TS:
        num = f"TRY_CAST({v} AS DOUBLE)"
        # Epoch numbers: seconds, or milli/micro/nanoseconds by magnitude.
        epoch = (
            f"CASE WHEN abs({num}) >= 1e17 THEN to_timestamp({num} / 1e9) "
            f"WHEN abs({num}) >= 1e14 THEN to_timestamp({num} / 1e6) "
            f"WHEN abs({num}) >= 1e11 THEN to_timestamp({num} / 1e3) "
            f"ELSE to_timestamp({num}) END"
        )
        # Strings: ISO 8601 with or without offset; naive ones are read in the
        # decoder session's time zone (= --tz).
        value = (
            f"CASE WHEN {jt} IN ('BIGINT','UBIGINT','DOUBLE') THEN {epoch} "
            f"WHEN {jt} = 'VARCHAR' THEN CASE WHEN regexp_matches(trim({v} ->> '$'), '^[0-9]+(\\.[0-9]+)?$') "
            f"THEN to_timestamp(TRY_CAST(trim({v} ->> '$') AS DOUBLE)) "
            f"ELSE TRY_CAST(trim({v} ->> '$') AS TIMESTAMPTZ) END END"
        )
        check = f"CASE WHEN {present} AND ({value}) IS NULL THEN 'field {name}: expected a timestamp, got ''' || {_shown(v)} || '''' END"
        return value, check
    if field.kind == JSON:
        return f"CASE WHEN {present} THEN CAST({v} AS JSON) END", None
    if field.kind == JSON_TEXT:
        # MySQL dumps hold JSON as an escaped string; parse it when it is JSON,
        # otherwise keep the string as a JSON string so nothing is lost.
        value = (
            f"CASE WHEN NOT {present} THEN NULL "
            f"WHEN {jt} = 'VARCHAR' AND json_valid({v} ->> '$') AND trim({v} ->> '$') <> '' THEN json({v} ->> '$') "
            f"ELSE CAST({v} AS JSON) END"
        )
        return value, None
    raise ValueError(f"unknown field kind {field.kind!r}")


def compile_select(fields: list[Field], source: str, where: str, extra_columns: str = "") -> str:
    """SELECT line, raw, <columns>, reason, metadata_extra FROM source WHERE where.

    `metadata_extra` holds, as a JSON object, the input keys no field consumed,
    so nothing the producer wrote is lost.
    """
    keys: list[str] = []
    for f in fields:
        for k in f.input_keys:
            if k not in keys:
                keys.append(k)
    paths = ", ".join(sql_str(_quote_path(k)) for k in keys)
    idx = {k: i + 1 for i, k in enumerate(keys)}

    cols, checks = [], []
    for f in fields:
        frags = [f"v[{idx[k]}]" for k in f.input_keys]
        v = frags[0] if len(frags) == 1 else (
            # first key that is present and not null
            "CASE " + " ".join(f"WHEN {x} IS NOT NULL AND json_type({x}) <> 'NULL' THEN {x}" for x in frags) + f" ELSE {frags[0]} END"
        )
        value, check = _value_and_check(f, v)
        cols.append(f"{value} AS {f.column}")
        if check:
            checks.append(check)
        if f.required:
            shown = " or ".join(f.input_keys)
            checks.append(f"CASE WHEN ({value}) IS NULL AND ({v} IS NULL OR json_type({v}) = 'NULL') "
                          f"THEN 'missing required field {shown}' END")
    known = "[" + ", ".join(sql_str(k) for k in keys + ["record"]) + "]"
    extra = (
        f"CASE WHEN len(list_filter(json_keys(raw), lambda k: NOT list_contains({known}, k))) = 0 THEN NULL "
        f"ELSE CAST(to_json(map_from_entries(list_transform("
        f"list_filter(json_keys(raw), lambda k: NOT list_contains({known}, k)), "
        f"lambda k: {{'k': k, 'v': json_extract(raw, '$.\"' || replace(k, '\"', '\\\"') || '\"')}}))) AS JSON) END"
    )
    reason = "concat_ws('; ', " + ", ".join(checks) + ")" if checks else "''"
    extra_sql = f", {extra_columns}" if extra_columns else ""
    return (
        f"SELECT line, raw, {', '.join(cols)}, {reason} AS _reject, {extra} AS metadata_extra{extra_sql}\n"
        f"FROM (SELECT line, raw, json_extract(raw, [{paths}]) AS v FROM {source} WHERE {where})"
    )
