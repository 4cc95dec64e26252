"""The read side's shared vocabulary: what a status, a role, a step kind, a failed tool call and
an epoch number mean, for every reader (SQL and Python alike). Nothing else defines them: the
canonical contract (records.py), the field mappings (fields.py), the Python readers and the OTLP
derivation import these."""

# The values the warehouse stores.
TASK_STATUSES = ("running", "success", "partial", "failed", "unknown")
STEP_STATUSES = ("success", "failed", "running", "unknown")
STEP_KINDS = ("tool", "llm", "verify", "other")
ROLES = ("user", "assistant", "tool", "system")
VERIFY_TOOL = "verify_result"  # the sentinel's tool: its steps are of kind verify

# How sources spell a status: each word onto the stored value. A step can also time out.
SUCCESS_WORDS = ("success", "succeeded", "successful", "ok", "done", "completed", "complete", "finished")
PARTIAL_WORDS = ("partial", "partially_succeeded", "partial_success")
FAILED_WORDS = ("failed", "fail", "failure", "error", "errored", "aborted", "cancelled", "canceled")
RUNNING_WORDS = ("running", "in_progress", "pending", "started", "executing", "processing")
TASK_STATUS_WORDS = {"success": SUCCESS_WORDS, "partial": PARTIAL_WORDS, "failed": FAILED_WORDS,
                     "running": RUNNING_WORDS}
STEP_STATUS_WORDS = {"success": SUCCESS_WORDS, "failed": (*FAILED_WORDS, "timeout"), "running": RUNNING_WORDS}

# How sources spell a role (chat dumps, LangChain classes and types), onto ROLES.
ROLE_SPELLINGS = {
    "assistant": "assistant", "ai": "assistant", "model": "assistant", "bot": "assistant", "agent": "assistant",
    "aimessage": "assistant", "aimessagechunk": "assistant",
    "user": "user", "human": "user", "customer": "user", "humanmessage": "user", "humanmessagechunk": "user",
    "tool": "tool", "function": "tool", "toolmessage": "tool", "functionmessage": "tool",
    "system": "system", "developer": "system", "systemmessage": "system",
}

# Epoch numbers: seconds, or milli/micro/nanoseconds told apart by magnitude.
EPOCH_SCALES = ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3))


def epoch_seconds(value: float) -> float:
    """An epoch number (s, ms, us or ns by magnitude) in seconds."""
    for at_least, per_second in EPOCH_SCALES:
        if abs(value) >= at_least:
            return value / per_second
    return value


def epoch_seconds_sql(num: str) -> str:
    """`epoch_seconds` over the SQL number `num`."""
    cases = " ".join(f"WHEN abs({num}) >= {at_least:g} THEN {num} / {per_second:g}" for at_least, per_second in EPOCH_SCALES)
    return f"(CASE {cases} ELSE {num} END)"


def step_kind(tool: str | None) -> str:
    """The kind of a step a source did not give one: the sentinel's is verify, others are tools."""
    return "verify" if tool == VERIFY_TOOL else "tool"


def _quoted(words) -> str:
    return ",".join(f"'{w}'" for w in words)


def status_sql(s: str, words: dict[str, tuple[str, ...]]) -> str:
    """SQL for a status text `s` onto the stored values (unknown when no word matches)."""
    cases = "\n".join(f"  WHEN lower(trim({s})) IN ({_quoted(spelled)}) THEN '{value}'" for value, spelled in words.items())
    return f"CASE\n  WHEN {s} IS NULL THEN NULL\n{cases}\n  ELSE 'unknown' END"


# A step's kind: as given when it is one we know, else from the tool name.
STEP_KIND = (
    f"CASE WHEN lower(kind) IN ({_quoted(STEP_KINDS)}) THEN lower(kind) "
    f"WHEN tool = '{VERIFY_TOOL}' THEN 'verify' WHEN tool IS NULL THEN 'other' ELSE 'tool' END"
)

# Roles as the chat dumps spell them, onto ROLES (others are kept, lower-cased).
MESSAGE_ROLE = "CASE lower(trim(role)) " + " ".join(
    f"WHEN '{spelled}' THEN '{role}'" for spelled, role in ROLE_SPELLINGS.items()) + " ELSE lower(trim(role)) END"


# ---------------------------------------------------------------------------
# How a tool result says it failed: one vocabulary for every reader.
#
# Agent stacks spell failure many ways: MCP `isError`, `success: false` (or 0),
# `ok: false`, `status: "error"` (LangChain ToolMessage, LangSmith runs),
# an exit code (shells, code executors), an `error` object (OpenAI Agents SDK
# spans, Inspect tool events), an error level (Langfuse observations). A reader
# hands what it has to `failure()`; nothing else decides what failure means.
# ---------------------------------------------------------------------------

import json as _json
import re as _re
from typing import Any as _Any

FAILED_STATUSES = frozenset({
    "error", "errored", "failed", "failure", "fail", "exception", "timeout", "timed_out", "timedout",
    "rejected", "denied", "cancelled", "canceled", "aborted", "status_code_error",
})
# Inside a tool's result body a `status` may describe the thing the tool returned (an order
# that is "cancelled", a payment "rejected"), not the call: only these words mean the call failed.
RESULT_FAILED_STATUSES = frozenset({"error", "errored", "failed", "failure", "fail", "exception"})
SUCCESS_STATUSES = frozenset({"success", "succeeded", "ok", "completed", "complete", "done", "status_code_ok"})
ERROR_LEVELS = frozenset({"error", "fatal", "critical"})
EXIT_CODE_KEYS = ("exit_code", "exitCode", "exitcode", "returncode", "return_code", "returnCode", "exit_status")
_ERROR_FLAG_KEYS = ("isError", "is_error")
# Text results: a leading "Error:" (tau-bench, many tool wrappers) and the exit-code lines that
# code executors print (AG2 "exitcode: 1 (execution failed)", Magentic-One "POSIX exit code: 1").
_ERROR_PREFIX = _re.compile(r"^\s*(error|exception)\s*:", _re.IGNORECASE)
_EXIT_CODE_TEXT = _re.compile(r"\bexit\s?code(?: was)?\s*[:=]?\s*(-?\d+)", _re.IGNORECASE)
# Shell and editor observations with no exit code (SWE-agent): the command failed to run or the
# edit was refused. Anchored at the start of the observation, so a file that merely contains
# such a line is not a failure.
_SHELL_FAILURE = _re.compile(
    r"^\s*(?:Traceback \(most recent call last\)"
    r"|Your proposed edit has introduced new syntax error"
    r"|bash: .{0,200}(?:command not found|No such file or directory|syntax error)"
    r"|/bin/(?:ba)?sh: .{0,200}(?:not found|No such file or directory)"
    r"|Usage: "
    r"|Error: "
    r"|The command .{0,200} (?:was cancelled|timed out)"
    r"|(?:File|Directory) .{0,200} (?:not found|does not exist)"
    r"|No replacement was performed)",
    _re.IGNORECASE | _re.DOTALL,
)


def _empty(value: _Any) -> bool:
    return value is None or value is False or (isinstance(value, (str, list, dict)) and len(value) == 0) \
        or (isinstance(value, str) and not value.strip())


def _as_text(value: _Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        said = value.get("message") or value.get("error") or value.get("detail")
        data = value.get("data")
        inner = data.get("error") if isinstance(data, dict) else None  # OpenAI Agents SDK SpanError
        if isinstance(said, str) and said.strip():
            return f"{said.strip()}: {_as_text(inner)}" if not _empty(inner) else said.strip()
    return _json.dumps(value, ensure_ascii=False, default=str)


def is_failed_status(status: _Any, words: frozenset[str] = FAILED_STATUSES) -> bool:
    """`status: error/failed/...`, also OpenTelemetry's `{code: 2}` / `STATUS_CODE_ERROR`."""
    if isinstance(status, dict):
        status = status.get("code", status.get("status_code"))
        if status == 2:
            return True
    return isinstance(status, str) and status.strip().lower().replace(" ", "_") in words


def exit_code_failure(code: _Any) -> str | None:
    """A non-zero exit code as an error text, else None (0, missing, not a number)."""
    if isinstance(code, bool) or code is None:
        return None
    try:
        n = int(str(code).strip())
    except ValueError:
        return None
    return f"exit code {n}" if n != 0 else None


def text_failure(text: _Any, shell: bool = False) -> str | None:
    """The error a plain-text tool result reports: a leading `Error:`, a non-zero exit code
    line; with `shell`, also the observations a shell or file editor prints on failure."""
    if not isinstance(text, str) or not text.strip():
        return None
    if _ERROR_PREFIX.match(text):
        return text.strip()
    found = _EXIT_CODE_TEXT.search(text[:400])
    if found and exit_code_failure(found.group(1)):
        return text.strip()
    if shell and _SHELL_FAILURE.match(text):
        return text.strip()
    return None


def envelope_failure(result: _Any) -> str | None:
    """The error a structured tool result (a JSON object) reports, else None."""
    if not isinstance(result, dict):
        return None
    said = result.get("message") or result.get("detail") or result.get("content") or result.get("statusMessage")
    said_text = None if _empty(said) else _as_text(said if not isinstance(said, list) else _parts_text(said))
    err = result.get("error")
    if not _empty(err) and err is not True:
        return _as_text(err)
    if err is True or any(result.get(k) is True for k in _ERROR_FLAG_KEYS):
        return said_text or "the tool reported an error"
    for key in ("success", "ok"):
        flag = result.get(key)
        if flag is False or (flag == 0 and not isinstance(flag, bool) and isinstance(flag, int)) \
                or (isinstance(flag, str) and flag.strip().lower() in ("false", "0", "no")):
            return said_text or f"{key}: {flag}"
    if is_failed_status(result.get("status"), RESULT_FAILED_STATUSES):
        return said_text or f"status: {result.get('status')}"
    for key in EXIT_CODE_KEYS:
        code = exit_code_failure(result.get(key))
        if code:
            out = result.get("stderr") or result.get("output") or said_text
            return f"{code}: {_as_text(out)}" if not _empty(out) else code
    return None


def _parts_text(parts: list) -> str:
    texts = [p.get("text") for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n".join(texts) if texts else _json.dumps(parts, ensure_ascii=False, default=str)


def failure(result: _Any = None, *, text: _Any = None, error: _Any = None, status: _Any = None,
            exit_code: _Any = None, level: _Any = None, shell: bool = False) -> str | None:
    """The one answer to "did this tool call fail, and with what error?".

    `result` is the tool's result (a parsed JSON object or anything else), `text` its text
    form; `error`, `status`, `exit_code`, `level` are what the surrounding record says about
    the call (a span's error, a run's status, a log level). `shell`: the tool is a shell or
    file editor, so its failure observations count. Returns the error text, or None.
    """
    said = envelope_failure(result)
    shown = None if _empty(text) else _as_text(text)
    if not _empty(error) and error is not True:
        return _as_text(error)
    if error is True or is_failed_status(status):
        return said or text_failure(text, shell) or shown or ("the tool reported an error" if error is True
                                                              else f"status {status}")
    code = exit_code_failure(exit_code)
    if code:
        return f"{code}: {shown}" if shown else code
    if isinstance(level, str) and level.strip().lower() in ERROR_LEVELS:
        return said or shown or f"level {level}"
    if text is None and isinstance(result, str):
        text = result
    return said or text_failure(text, shell)


# Shells, code executors and file editors report failure in their text output (a traceback, a
# refused edit, "command not found") more often than in a structured result: their observations
# are read with `failure(..., shell=True)`. (Which tools count as writes is the rules' business:
# queries/config.py.)
SHELL_TOOLS = frozenset({"bash", "shell", "sh", "execute_bash", "run_shell_command", "run_command",
                         "execute_command", "terminal", "computer_terminal", "computerterminal", "python", "ipython",
                         "execute_code", "code_interpreter"})
EDIT_TOOLS = frozenset({"edit", "create", "insert", "write", "str_replace", "str_replace_editor",
                        "str_replace_based_edit_tool", "write_file", "edit_file", "create_file", "apply_patch",
                        "multiedit", "multi_edit", "notebookedit"})


def is_coding_tool(tool: _Any) -> bool:
    """A shell or file-editing tool, whose text observations carry its failures."""
    return isinstance(tool, str) and tool.strip().lower() in (SHELL_TOOLS | EDIT_TOOLS)
