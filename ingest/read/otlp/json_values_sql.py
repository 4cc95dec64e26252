"""SQL expressions for the values of an OTLP/JSON span: AnyValue kinds, 64-bit integers as
numbers or strings, hex or base64 ids, enums as integers or names, nanosecond times. Used by
the span queries of `json_sql.py`; each reads as `spans.py`, the Python reference, does."""

from __future__ import annotations


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# ---- value expressions ----------------------------------------------------------------------

_INT_TEXT = r"'\s*[+-]?[0-9]+\s*'"

BAD = "chr(1)"
SLOW = "chr(2)"
"""Marks inside a row's JSON texts: a value that cannot be read (the span is rejected), a
value the lean query does not read (the request is read again). to_json and json.dumps
escape control characters, so the text of a value never holds either."""


def _int_json(x: str) -> str:
    """A JSON integer (number or string, as int() reads it) as JSON text; NULL when not an integer."""
    s = f"json_extract_string({x}, '$')"
    # Producers write int64 as a string of digits ("320"): that one form skips json_type.
    return (f"(CASE WHEN regexp_full_match({x}, '\"[0-9]{{1,18}}\"') "
            f"THEN CAST(CAST(substr({x}, 2, length({x}) - 2) AS BIGINT) AS VARCHAR) "
            f"ELSE CASE json_type({x}) WHEN 'BIGINT' THEN CAST({x} AS VARCHAR) WHEN 'UBIGINT' THEN CAST({x} AS VARCHAR) "
            f"WHEN 'DOUBLE' THEN CAST(TRY_CAST(trunc(CAST({x} AS DOUBLE)) AS HUGEINT) AS VARCHAR) "
            f"WHEN 'VARCHAR' THEN CASE WHEN regexp_full_match({s}, {_INT_TEXT}) "
            f"THEN CAST(TRY_CAST(trim({s}) AS HUGEINT) AS VARCHAR) END END END)")


def _double_json(x: str) -> str:
    """float() of a number or a string, as JSON text; NaN and infinities are null; NULL when unreadable."""
    d = (f"(CASE json_type({x}) WHEN 'VARCHAR' THEN TRY_CAST(trim(json_extract_string({x}, '$')) AS DOUBLE) "
         f"WHEN 'BIGINT' THEN CAST({x} AS DOUBLE) WHEN 'UBIGINT' THEN CAST({x} AS DOUBLE) "
         f"WHEN 'DOUBLE' THEN CAST({x} AS DOUBLE) END)")
    return f"(CASE isfinite({d}) WHEN true THEN to_json({d}) WHEN false THEN 'null' END)"


def _bool_json(x: str) -> str:
    return (f"(CASE WHEN {x} IN ('true', 'false') THEN CAST({x} AS VARCHAR) "
            f"WHEN lower(json_extract_string({x}, '$')) = 'true' THEN 'true' ELSE 'false' END)")


_KINDS = ("boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue")


def _snake(name: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


def _value_json(v: str, bad: str | None = None, lean: bool = False) -> str:
    """An AnyValue struct as the JSON text of its plain value (VARCHAR).

    A value that cannot be read gives `bad` (None: NULL). `lean` reads the lowerCamelCase
    fields only, and gives SLOW for a value with a snake_case field, whose request is then
    read again by FULL_SPANS. Strings come first, through a lazy coalesce: most values
    pass one to_json and nothing else. (Coalescing the two spellings of a field at each
    use cost more than everything else in the list.)
    """
    def c(name: str) -> str:
        return f"{v}.{name}" if lean else f"coalesce({v}.{name}, {v}.{_snake(name)})"

    def readable(expr: str) -> str:
        return expr if bad is None else f"coalesce({expr}, {bad})"
    strings = f"CAST(to_json({v}.stringValue) AS VARCHAR)" + (
        "" if lean else f", CAST(to_json({v}.string_value) AS VARCHAR)")
    snake = (f"WHEN {' OR '.join(f'{v}.{_snake(k)} IS NOT NULL' for k in ('stringValue',) + _KINDS)} THEN {SLOW} "
             if lean else "")
    double = f"CAST({_double_json(c('doubleValue'))} AS VARCHAR)"
    array = f"otlp_nested_value('arrayValue', CAST({c('arrayValue')} AS VARCHAR))"
    kvlist = f"otlp_nested_value('kvlistValue', CAST({c('kvlistValue')} AS VARCHAR))"
    return (f"coalesce({strings}, CASE {snake}"
            f"WHEN {c('boolValue')} IS NOT NULL THEN {_bool_json(c('boolValue'))} "
            f"WHEN {c('intValue')} IS NOT NULL THEN {readable(_int_json(c('intValue')))} "
            f"WHEN {c('doubleValue')} IS NOT NULL THEN {readable(double)} "
            f"WHEN {c('arrayValue')} IS NOT NULL THEN {readable(array)} "
            f"WHEN {c('kvlistValue')} IS NOT NULL THEN {readable(kvlist)} "
            f"WHEN {c('bytesValue')} IS NOT NULL THEN CAST({c('bytesValue')} AS VARCHAR) "
            f"ELSE 'null' END)")


def _entries(attrs: str, var: str, bad: str | None, lean: bool) -> str:
    """Per attribute, its `"key":value` text in the object; NULL for an attribute without a key.

    One pass over the list: filtering a list of AnyValue structs first copies every field,
    which cost more than all the formatting.
    """
    return f"list_transform({attrs}, lambda {var}: to_json({var}.key) || ':' || {_value_json(var + '.value', bad, lean)})"


def _keys(attrs: str, var: str) -> str:
    return f"list_transform({attrs}, lambda {var}: {var}.key)"


def _unique(keys: str) -> str:
    """Every key present and none repeated (list_unique counts distinct keys that are not NULL)."""
    return f"(list_unique({keys}) = len({keys}))"


def _object(entries: str, keys: str, unique: str, var: str) -> str:
    """One JSON object of the entries; a key given twice keeps its last value (as a dict does)."""
    deduped = f"list_filter({entries}, lambda {var}, i_: NOT list_contains({keys}[i_ + 1:], {keys}[i_]))"
    return (f"('{{' || coalesce(list_aggr(CASE WHEN {unique} THEN {entries} ELSE {deduped} END, "
            f"'string_agg', ','), '') || '}}')")


def _all_entries(entries: str) -> str:
    """Every entry, repeated keys included: the marks of a value a later repeat replaced still count."""
    return f"list_aggr({entries}, 'string_agg', ',')"


def _int64(x: str) -> str:
    """int() of an int64 field sent as a string or a number (None for absent or ""), as BIGINT."""
    return (f"(CASE WHEN {x} IS NULL OR {x} = '' THEN NULL "
            f"WHEN regexp_full_match({x}, {_INT_TEXT}) THEN TRY_CAST(trim({x}) AS BIGINT) "
            f"ELSE TRY_CAST(trunc(TRY_CAST({x} AS DOUBLE)) AS BIGINT) END)")


def _int64_bad(x: str) -> str:
    return f"({x} IS NOT NULL AND {x} <> '' AND {_int64(x)} IS NULL)"


def _id_hex(v: str, n: int) -> str:
    """An id as lower-case hex: hex text as it is, base64 decoded; NULL when empty or unreadable.

    Its length is checked apart (`_id_ok`). from_base64 fails on a length that is not a
    multiple of 4 and on '-' or '_': such text goes straight to the URL-safe reading,
    since a call that fails under try() costs more than a whole good row.
    """
    url = f"try(from_base64(translate({v}, '-_', '+/') || repeat('=', (4 - length({v}) % 4) % 4)))"
    b64 = (f"CASE WHEN length({v}) % 4 <> 0 OR contains({v}, '-') OR contains({v}, '_') THEN {url} "
           f"ELSE coalesce(try(from_base64({v})), {url}) END")
    return (f"(CASE WHEN {v} = '' THEN NULL "
            f"WHEN length({v}) = {2 * n} AND regexp_full_match({v}, '[0-9a-fA-F]+') THEN lower({v}) "
            f"ELSE lower(hex({b64})) END)")


def _id_ok(h: str, n: int) -> str:
    return f"(length({h}) = {2 * n} AND ltrim({h}, '0') <> '')"


def _enum(x: str, names: dict[int, str], prefix: str, default: str) -> str:
    by_int = " ".join(f"WHEN {i} THEN '{name}'" for i, name in names.items())
    by_name = " ".join(f"WHEN '{prefix.upper()}{name.upper()}' THEN '{name}'" for name in names.values())
    return (f"(CASE WHEN {x} IS NULL OR {x} = '' THEN '{default}' "
            f"WHEN regexp_full_match({x}, '[0-9]+') THEN CASE TRY_CAST({x} AS BIGINT) {by_int} ELSE '{default}' END "
            f"ELSE CASE upper({x}) {by_name} ELSE regexp_replace(lower({x}), '^{prefix}', '') END END)")


def _us(ns: str) -> str:
    """Epoch microseconds (0 is unset: NULL); made a UTC timestamp in Arrow, whatever the session's time zone."""
    return f"(CASE WHEN coalesce({ns}, 0) = 0 THEN NULL ELSE {ns} // 1000 END)"


# ---- the spans ------------------------------------------------------------------------------
