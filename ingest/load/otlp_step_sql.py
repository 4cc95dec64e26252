"""A step's columns as SQL over its span's attribute texts: the tool, its arguments and result,
and the error the result states (isError, ok/success false, an error value, a non-zero exit
code, status error, a leading 'Error:', an exception event). Used by the STEPS and TASKS
statements of `otlp_rebuild_sql.py`."""

from __future__ import annotations

from ..read.otlp.attributes import LANGFUSE_LEVEL, TOOL_ARGS, TOOL_NAME, TOOL_RESULT
from ..read.vocabulary import TASK_STATUSES
from .otlp_attr_sql import EXIT_KEYS, RESULT_KEYS, as_int, col, first, is_str, or_chain, short, sval


_result = first([col(k) for k in TOOL_RESULT])
_args = first([col(k) for k in TOOL_ARGS])
_tool = first([col(k) for k in TOOL_NAME])
_err = col("error.type")
_lf_level = col(LANGFUSE_LEVEL)


def _p(key: str) -> str:
    return f"p[{RESULT_KEYS.index(key) + 1}]"


# r's JSON type is read once (r_type): each json_type(r) parsed the whole result again.
_obj = "(r_type = 'OBJECT')"
_IS_ERROR_TRUE = "'\"isError: true\"'"
_OK_FALSE = "'\"ok: false\"'"
_SUCCESS_FALSE = "'\"success: false\"'"
_STATUS_TEXT = "to_json('status: ' || " + sval("p[" + str(RESULT_KEYS.index("status") + 1) + "]") + ")"
_WS = "' \t\n\r\f\v'"
_TASK_STATUSES = ", ".join(f"'{v}'" for v in TASK_STATUSES)
_r_text = sval("r")
_said = "(CASE " + " ".join([
    f"WHEN {_obj} AND ({_p('isError')} = 'true' OR {_p('is_error')} = 'true') "
    f"THEN {short(or_chain([_p('content'), _p('error'), _IS_ERROR_TRUE]))}",
    f"WHEN {_obj} AND {_p('ok')} = 'false' "
    f"THEN {short(or_chain([_p('error'), _p('message'), _p('detail'), _OK_FALSE]))}",
    f"WHEN {_obj} AND {_p('success')} = 'false' "
    f"THEN {short(or_chain([_p('error'), _p('message'), _p('detail'), _SUCCESS_FALSE]))}",
    f"WHEN {_obj} AND {_p('error')} IS NOT NULL AND {_p('error')} NOT IN ('null', 'false', '0', '0.0', '\"\"', '{{}}', '[]') "
    f"THEN {short(_p('error'))}",
    *[f"WHEN {_obj} AND json_type({_p(k)}) IN ('BIGINT', 'UBIGINT') AND {_p(k)} <> '0' THEN 'exit code ' || {_p(k)}"
      for k in EXIT_KEYS],
    f"WHEN {_obj} AND {is_str(_p('status'))} AND lower({sval(_p('status'))}) IN ('error', 'failed', 'failure') "
    f"THEN {short(or_chain([_p('message'), _STATUS_TEXT]))}",
    f"WHEN r_type = 'VARCHAR' AND starts_with(ltrim({_r_text}, {_WS}), 'Error:') "
    f"THEN {short('to_json(trim(' + _r_text + ', ' + _WS + '))')}",
]) + " END)"
_exception = ("list_filter(list_transform(json_extract(events, '$[*]'), lambda e: CASE WHEN e->>'name' = 'exception' "
              "THEN nullif(coalesce(nullif(e->'attributes'->>'exception.message', ''), "
              "e->'attributes'->>'exception.type'), '') END), lambda m: m IS NOT NULL)[1]")

# Values read several times are columns of an earlier CTE: an expression such as
# as_int(first([...])) spelled out inline repeated its CASE at every use.


def _holds_json(x: str, t: str) -> str:
    """A JSON string (x) whose trimmed text (t) is itself JSON (mapping.parse_json)."""
    return (f"({is_str(x)} AND (left({t}, 1) IN ('{{', '[', '\"') OR {t} IN ('true', 'false', 'null')) "
            f"AND json_valid({t}))")
