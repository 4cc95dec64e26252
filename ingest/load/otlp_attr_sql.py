"""The OTLP derivation's view of a span's attributes, and the SQL helpers over their JSON text.

Attributes are read once per span: one `json_extract` with a list of paths (ATTRS) parses each
span's attribute object a single time and yields the JSON text of every attribute the mapping
looks at (NULL when absent or JSON null), as column a<i>. The helpers turn that text into what
the test reference compares: a string's value, Python truthiness, `str()` of a value,
`as_bool` / `as_int`.
"""

from __future__ import annotations

from ..read.otlp.attributes import CONVERSATION_KEYS, INPUT_TOKENS, LANGFUSE_LEVEL, LANGFUSE_STATUS_MESSAGE, LANGFUSE_TYPE, MCP_METHOD, MODEL, OUTPUT_TOKENS, STEP_PROVIDER, TASK_ID_KEY, TEXT_KEYS, TOOL_ARGS, TOOL_NAME, TOOL_RESULT, USER_KEYS

ATTRS = tuple(dict.fromkeys((
    "gen_ai.operation.name", "openinference.span.kind", "traceloop.span.kind", "llm.request.type",
    *TOOL_NAME, *TOOL_ARGS, *TOOL_RESULT, *MODEL, *STEP_PROVIDER, *INPUT_TOKENS, *OUTPUT_TOKENS,
    *CONVERSATION_KEYS, *USER_KEYS, *TEXT_KEYS,
    "error.type", "trace_audit.verified", "trace_audit.attempts", "trace_audit.detail", "trace_audit.reason",
    "trace_audit.status", "trace_audit.replanned", "trace_audit.prompt_version", "gen_ai.tool.call.id",
    "gen_ai.agent.name", "gen_ai.agent.id", "gen_ai.agent.version", "trace_audit.error", TASK_ID_KEY,
    LANGFUSE_TYPE, LANGFUSE_LEVEL, LANGFUSE_STATUS_MESSAGE, MCP_METHOD,
)))
RESOURCE_ATTRS = tuple(dict.fromkeys((*CONVERSATION_KEYS, *USER_KEYS, "service.name", "service.version")))
RESULT_KEYS = ("isError", "is_error", "ok", "success", "error", "exit_code", "exitCode", "exitcode",
               "returncode", "return_code", "status", "content", "message", "detail", "verified", "attempts")
EXIT_KEYS = ("exit_code", "exitCode", "exitcode", "returncode", "return_code")


def col(key: str) -> str:
    """The otlp_sp column holding an attribute's JSON text."""
    return "a" + str(ATTRS.index(key))


def rcol(key: str) -> str:
    return "r" + str(RESOURCE_ATTRS.index(key))


def _paths(keys) -> str:
    return "[" + ", ".join("'$.\"" + k + "\"'" for k in keys) + "]"


# ---- value helpers over JSON text -----------------------------------------------------

def is_str(x: str) -> str:
    return f"(left({x}, 1) = '\"')"


def sval(x: str) -> str:
    """The value of a JSON string (or the text of any other value)."""
    return f"json_extract_string({x}, '$')"


def pystr(x: str) -> str:
    """str() of the Python value."""
    return f"(CASE WHEN {x} = 'true' THEN 'True' WHEN {x} = 'false' THEN 'False' ELSE {sval(x)} END)"


def truthy(x: str) -> str:
    return f"({x} IS NOT NULL AND {x} NOT IN ('false', '0', '0.0', '-0.0', '\"\"', '[]', '{{}}'))"


def present(x: str) -> str:
    """Not None and not "" (mapping._first)."""
    return f"({x} IS NOT NULL AND {x} <> '\"\"')"


def first(xs) -> str:
    """The first value that is present, as JSON text."""
    return "(CASE " + " ".join(f"WHEN {present(x)} THEN {x}" for x in xs) + " END)"


def or_chain(xs) -> str:
    """Python `a or b or c`: the first truthy value, else the last one."""
    *head, last = xs
    return "(CASE " + " ".join(f"WHEN {truthy(x)} THEN {x}" for x in head) + f" ELSE {last} END)"


def as_bool(x: str) -> str:
    return (f"(CASE WHEN {x} IN ('true', 'false') THEN {x} = 'true' "
            f"WHEN json_type({x}) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN CAST({x} AS DOUBLE) <> 0 "
            f"WHEN {is_str(x)} AND lower({sval(x)}) IN ('true', '1', 'yes') THEN true "
            f"WHEN {is_str(x)} AND lower({sval(x)}) IN ('false', '0', 'no') THEN false END)")


def as_int(x: str) -> str:
    return (f"(CASE WHEN json_type({x}) IN ('BIGINT', 'UBIGINT') THEN TRY_CAST({x} AS BIGINT) "
            f"WHEN json_type({x}) = 'DOUBLE' THEN TRY_CAST(trunc(CAST({x} AS DOUBLE)) AS BIGINT) "
            f"WHEN {is_str(x)} AND regexp_full_match({sval(x)}, '\\s*[+-]?[0-9]+\\s*') "
            f"THEN TRY_CAST(trim({sval(x)}) AS BIGINT) END)")


def short(x: str) -> str:
    """mapping._short: a string as is, anything else as JSON; at most 500 characters."""
    t = f"(CASE WHEN {is_str(x)} THEN {sval(x)} ELSE CAST({x} AS VARCHAR) END)"
    return f"(CASE WHEN length({t}) > 500 THEN left({t}, 500) || '…' ELSE {t} END)"


def meta(pairs) -> str:
    """A JSON object of the (name, JSON text) pairs whose value is not NULL, in order.

    Spliced as text (concat_ws skips NULLs): every value is already compact JSON
    (from json_transform, json_extract or to_json), and a map built and serialised per row cost
    a sixth of the steps statement.
    """
    entries = ", ".join(f"CASE WHEN {v} IS NOT NULL AND {v} <> 'null' THEN '\"{k}\":' || {v} END"
                        for k, v in pairs)
    return f"('{{' || concat_ws(',', {entries}) || '}}')"
