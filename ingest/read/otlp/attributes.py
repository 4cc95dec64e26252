"""Names of the span attributes the OTLP mapping reads: stated once, used by the SQL rebuild and its test reference."""

from __future__ import annotations

LLM_OPERATIONS = {"chat", "text_completion", "generate_content", "completion"}
CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id", "conversation.id",
                     "traceloop.association.properties.session_id")
USER_KEYS = ("user.id", "enduser.id", "gen_ai.user.id", "traceloop.association.properties.user_id")
# The id a producer gives the turn in its own systems (e.g. the audit log's task id).
TASK_ID_KEY = "trace_audit.task_id"
