"""Which columns redaction may change, and which JSON keys carry a user id.

Everything not listed (ids, tool, status, verified, attempts, times, model,
versions) is left alone so rule verdicts cannot move.
"""

from __future__ import annotations

import re

from ...queries.warehouse.tables import TRACE_TABLES
from ...queries.warehouse.types import json_columns

TEXT_COLUMNS: dict[str, tuple[str, ...]] = {
    "tasks": ("goal", "final_answer"),
    "steps": ("reason", "error", "detail"),
    # role: a known role never matches a pattern; an unknown one is stored as it came (lower-cased).
    "messages": ("content", "role"),
    # result: SUCCESS | FAIL | ... as known; an unknown value is stored as it came (upper-cased).
    "audit_logs": ("detail", "result"),
    # Span names carry URLs (`GET /users/alice@x.org?token=...`), and scope names and versions
    # are free text the instrumentation chose; all three are copied into tasks' and steps'
    # metadata when turns are derived from the stored spans.
    "otel_spans": ("status_message", "name", "scope_name", "scope_version"),
    # Not event_name: the rebuild matches it against the GenAI event names.
    "otel_logs": ("severity_text", "scope_name", "scope_version"),
}
# Every JSON column of the trace tables and of the raw OTLP spans and logs (GenAI log events carry
# prompts and replies; tasks/steps/messages are later derived from those stored rows, so redacting
# them covers everything derived from them).
JSON_COLUMNS: dict[str, tuple[str, ...]] = {t: json_columns(t) for t in (*TRACE_TABLES, "otel_spans", "otel_logs")}
USER_ID_COLUMNS: dict[str, tuple[str, ...]] = {
    "tasks": ("user_id",),
    "messages": ("user_id",),
    "audit_logs": ("user_id",),
}
# JSON keys that carry a user id: `user_id`, `userId`, OTel `user.id`, `enduser.id`,
# `gen_ai.user.id`, `traceloop.association.properties.user_id` (normalised forms).
USER_ID_KEYS = frozenset({"user_id", "userid", "enduser_id"})


def is_user_id_key(key: str) -> bool:
    n = normalise_key(key)
    return n in USER_ID_KEYS or n.endswith("_user_id")


def normalise_key(name: str) -> str:
    """`X-Api-Key` -> `x_api_key`; `http.request.header.authorization` -> `http_request_header_authorization`."""
    return re.sub(r"[-. ]", "_", name.strip().lower())
