"""Names of the span attributes the OTLP mapping reads: stated once, used by the SQL rebuild and its test reference."""

from __future__ import annotations

LLM_OPERATIONS = {"chat", "text_completion", "generate_content", "completion"}
CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id", "conversation.id",
                     "traceloop.association.properties.session_id")
USER_KEYS = ("user.id", "enduser.id", "gen_ai.user.id", "traceloop.association.properties.user_id")
# The id a producer gives the turn in its own systems (e.g. the audit log's task id).
TASK_ID_KEY = "trace_audit.task_id"
TOOL_NAME = ("gen_ai.tool.name", "tool.name", "traceloop.entity.name")
TOOL_ARGS = ("gen_ai.tool.call.arguments", "input.value", "traceloop.entity.input")
TOOL_RESULT = ("gen_ai.tool.call.result", "output.value", "traceloop.entity.output")
MODEL = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name")
PROVIDER = ("gen_ai.provider.name", "gen_ai.system")
STEP_PROVIDER = ("gen_ai.provider.name", "gen_ai.system", "llm.provider")
INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt",
                "llm.usage.prompt_tokens")
OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion",
                 "llm.usage.completion_tokens")
# Read in Python for the turn's request and reply (load/otlp_rebuild._texts).
TEXT_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "input.value", "output.value",
             "traceloop.entity.input", "traceloop.entity.output")
INDEXED_PREFIXES = ("llm.input_messages.", "llm.output_messages.", "gen_ai.prompt.", "gen_ai.completion.")
