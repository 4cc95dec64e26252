"""Field mappings as data, compiled into one vectorised SQL query per record kind.

A `Field` says which input keys feed a warehouse column, what type it must
have, and whether the record is useless without it. `compile_select` turns a
list of them into a DuckDB SELECT that, for every input record at once,
parses the record once (`json_transform` into a struct of every wanted key),
converts each value leniently (ids as numbers or strings, booleans as 0/1,
MySQL naive times, epoch seconds, JSON held in an escaped string) and writes
a `reason` naming every field that could not be read ("field seq: expected
an integer, got 'abc'"). Records with a reason go to quarantine whole; the
rest load.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .vocabulary import STEP_STATUS_WORDS, TASK_STATUS_WORDS, epoch_seconds_sql, status_sql

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


def sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


INT32_MAX = 2**31 - 1
# Epoch seconds a timestamp can hold (years 1..9999), after scaling.
_EPOCH_MIN, _EPOCH_MAX = -62135596800, 253402300799

_EXPECTED = {
    INT: "an integer",
    BOOL: "true/false or 1/0",
    TS: "a timestamp (ISO 8601 or epoch seconds)",
}


def _text(key: str, as_json: bool) -> str:
    """Input key `key` as VARCHAR: strings unquoted, other values as JSON text, NULL if absent or null."""
    v = f"v[{sql_str(key)}]"
    if not as_json:
        return v  # json_transform already gives this for a VARCHAR member
    return f"CASE WHEN starts_with({v}, '\"') THEN {v} ->> '$' ELSE CAST({v} AS VARCHAR) END"


def _convert(field: Field, t: str, j: str | None, int32: bool) -> str:
    """SQL for the converted value; `t` is the value as text, `j` as a JSON fragment."""
    if field.kind == STR:
        return t
    if field.kind in (STATUS_TASK, STATUS_STEP):
        return status_sql(t, TASK_STATUS_WORDS if field.kind == STATUS_TASK else STEP_STATUS_WORDS)
    if field.kind == INT:
        # BIGINT and DOUBLE must agree: '3.0' is 3, '3.5' is not an integer
        # (a plain cast would round it), 'true' is neither.
        value = f"CASE WHEN TRY_CAST({t} AS BIGINT) = TRY_CAST({t} AS DOUBLE) THEN TRY_CAST({t} AS BIGINT) END"
        if int32:  # the warehouse column is INTEGER: out of range would fail the whole insert
            value = f"CASE WHEN abs({value}) <= {INT32_MAX} THEN {value} END"
        return value
    if field.kind == BOOL:
        num = f"TRY_CAST({t} AS DOUBLE)"
        return (
            f"CASE WHEN lower(trim({t})) IN ('true','t','1','yes','y') THEN TRUE "
            f"WHEN lower(trim({t})) IN ('false','f','0','no','n') THEN FALSE "
            f"WHEN isfinite({num}) THEN {num} <> 0 END"
        )
    if field.kind == TS:
        num = f"TRY_CAST({t} AS DOUBLE)"
        # Epoch numbers: seconds, or milli/micro/nanoseconds by magnitude.
        seconds = epoch_seconds_sql(num)
        # Strings: ISO 8601 with or without offset; naive ones are read in the
        # decoder session's time zone (= --tz). Text with ':' or an inner '-'
        # is a date, so the (failing, costly) number cast is not tried on it.
        looks_like_date = f"(strpos({t}, ':') > 0 OR strpos({t}, '-') > 1)"
        return (
            f"CASE WHEN {t} IS NULL THEN NULL "
            f"WHEN {looks_like_date} THEN TRY_CAST({t} AS TIMESTAMPTZ) "
            f"WHEN {num} IS NOT NULL THEN CASE WHEN isfinite({num}) AND {seconds} BETWEEN {_EPOCH_MIN} AND {_EPOCH_MAX} "
            f"THEN to_timestamp({seconds}) END "
            f"ELSE TRY_CAST({t} AS TIMESTAMPTZ) END"
        )
    if field.kind == JSON:
        return f"CAST({j} AS JSON)"
    if field.kind == JSON_TEXT:
        # MySQL dumps hold JSON as an escaped string; parse it when it is JSON,
        # otherwise keep the string as a JSON string so nothing is lost.
        return (
            f"CASE WHEN starts_with({j}, '\"') THEN coalesce(try(json({j} ->> '$')), CAST({j} AS JSON)) "
            f"ELSE CAST({j} AS JSON) END"
        )
    raise ValueError(f"unknown field kind {field.kind!r}")


# The offset a date-time text ends with (…08:42:00+08:00, …08:42+0800, …T08:42:00.5Z): what the source
# wrote the time in, which the TIMESTAMPTZ cast turns into UTC and forgets. A zone name or an epoch
# number has none here.
_WRITTEN_OFFSET = r"\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)$"


def written_offset_sql(t: str, value: str) -> str:
    """SQL: the UTC offset in minutes text `t` was written with (+08:00 is 480, Z and +00:00 are
    0), NULL when it has none or did not convert to the time `value`."""
    off = f"replace(regexp_extract({t}, {sql_str(_WRITTEN_OFFSET)}, 1), ':', '')"
    minutes = (f"CASE WHEN upper(o) = 'Z' THEN 0 WHEN o <> '' THEN (CASE WHEN o[1] = '-' THEN -1 ELSE 1 END) * "
               f"(CAST(o[2:3] AS INTEGER) * 60 + CASE WHEN length(o) = 5 THEN CAST(o[4:5] AS INTEGER) ELSE 0 END) END")
    # one extract per row (a lambda over a one-item list names it once); an offset no zone on earth
    # uses (the cast accepts +25:00) says nothing about where the user is: NULL, never a zone
    return (f"CASE WHEN {value} IS NOT NULL AND strpos({t}, ':') > 0 "
            f"THEN list_transform([{off}], lambda o: {minutes}).list_filter(lambda m: m BETWEEN -720 AND 840)[1] END")


def _check(field: Field, t: str, value: str, int32: bool) -> str | None:
    """SQL for the reason a present value could not be converted, or None."""
    if field.kind not in _EXPECTED:
        return None
    name = field.column if field.input_keys == (field.column,) else field.input_keys[0]
    expected = _EXPECTED[field.kind] + (" (32-bit)" if field.kind == INT and int32 else "")
    return (f"CASE WHEN {t} IS NOT NULL AND {value} IS NULL "
            f"THEN 'field {name}: expected {expected}, got ''' || left({t}, 60) || '''' END")


def known_keys(fields: list[Field]) -> list[str]:
    """Input keys a mapping consumes (plus `record`, the canonical tag), in order."""
    keys: list[str] = []
    for f in fields:
        for k in f.input_keys:
            if k not in keys:
                keys.append(k)
    return keys + ["record"]


def has_unknown_keys_sql(fields: list[Field], keys_expr: str = "k") -> str:
    """SQL: does the record (whose top-level key list is `keys_expr`) carry keys no field consumes?"""
    known = "[" + ", ".join(sql_str(k) for k in known_keys(fields)) + "]"
    return f"len(list_filter({keys_expr}, lambda x: NOT list_contains({known}, x))) > 0"


def compile_select(fields: list[Field], source: str, where: str = "TRUE", extra_columns: str = "",
                   int32_columns: frozenset[str] | set[str] = frozenset(), extra_flag: str = "_extra",
                   offset_of: str | None = None) -> str:
    """SELECT line, raw, <columns>, _reject, metadata_extra FROM source WHERE where.

    `source` has columns line, raw and `extra_flag`, true for records with
    keys beyond the mapping's (see `has_unknown_keys_sql`). Each record is
    parsed once, into a struct of all wanted keys (as text, or as JSON for
    the JSON kinds); conversions and checks then work on plain values.
    `metadata_extra` holds, as a JSON object, the input keys no field
    consumed, so nothing the producer wrote is lost; only flagged records pay
    for that second parse. `int32_columns` are checked against the range of
    their INTEGER warehouse column. `offset_of` names a time column whose written UTC offset
    comes out as `utc_offset_min` (`written_offset_sql`).
    """
    keys = known_keys(fields)[:-1]
    json_keys = {k for f in fields if f.kind in (JSON, JSON_TEXT) for k in f.input_keys}
    structure = json.dumps({k: ("JSON" if k in json_keys else "VARCHAR") for k in keys}, ensure_ascii=False)

    converted, checks, flags = [], [], []
    for f in fields:
        texts = [_text(k, k in json_keys) for k in f.input_keys]
        t = texts[0] if len(texts) == 1 else "coalesce(" + ", ".join(texts) + ")"
        j = None
        if f.kind in (JSON, JSON_TEXT):
            frags = [f"v[{sql_str(k)}]" for k in f.input_keys]
            j = frags[0] if len(frags) == 1 else "coalesce(" + ", ".join(frags) + ")"
        int32 = f.column in int32_columns
        converted.append(f"{t} AS _t_{f.column}, {_convert(f, t, j, int32)} AS {f.column}")
        if f.column == offset_of and f.kind == TS:
            converted.append(f"{written_offset_sql(f'_t_{f.column}', f.column)} AS utc_offset_min")
        check = _check(f, f"_t_{f.column}", f.column, int32)
        if check:
            checks.append(check)
            flags.append(f"(_t_{f.column} IS NOT NULL AND {f.column} IS NULL)")
        if f.required:
            shown = " or ".join(f.input_keys)
            checks.append(f"CASE WHEN _t_{f.column} IS NULL THEN 'missing required field {shown}' "
                          f"WHEN trim(_t_{f.column}) = '' THEN 'required field {shown} is empty' END")
            # trim only for the rare value that starts or ends with a space.
            flags.append(f"_t_{f.column} IS NULL OR _t_{f.column} = '' "
                         f"OR ((starts_with(_t_{f.column}, ' ') OR ends_with(_t_{f.column}, ' ')) AND trim(_t_{f.column}) = '')")
    known = "[" + ", ".join(sql_str(k) for k in known_keys(fields)) + "]"
    extra = (
        f"CASE WHEN NOT _has_extra THEN NULL "
        f"ELSE CAST(to_json(map_from_entries(list_transform("
        f"list_filter(json_keys(raw), lambda x: NOT list_contains({known}, x)), "
        f"lambda x: {{'k': x, 'v': json_extract(raw, '$.\"' || replace(x, '\"', '\\\"') || '\"')}}))) AS JSON) END"
    )
    # The reason text is built only for the rows a cheap test flags.
    reason = (f"CASE WHEN {' OR '.join(flags)} THEN concat_ws('; ', {', '.join(checks)}) ELSE '' END"
              if checks else "''")
    extra_sql = f", {extra_columns}" if extra_columns else ""
    cols = ", ".join(f.column for f in fields)
    if any(f.column == offset_of and f.kind == TS for f in fields):
        cols += ", utc_offset_min"
    return (
        f"SELECT line, raw, {cols}, {reason} AS _reject, {extra} AS metadata_extra{extra_sql}\n"
        f"FROM (SELECT line, raw, _has_extra, {', '.join(converted)}\n"
        f"      FROM (SELECT line, raw, coalesce({extra_flag}, TRUE) AS _has_extra, json_transform(raw, {sql_str(structure)}) AS v\n"
        f"            FROM {source} WHERE {where}))"
    )
