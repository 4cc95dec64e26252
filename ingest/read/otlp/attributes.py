"""Names of the span attributes the OTLP mapping reads: stated once, used by the SQL rebuild and its test reference."""

from __future__ import annotations

LLM_OPERATIONS = {"chat", "text_completion", "generate_content", "completion"}
CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id", "conversation.id",
                     "traceloop.association.properties.session_id", "langfuse.session.id")
USER_KEYS = ("user.id", "enduser.id", "gen_ai.user.id", "traceloop.association.properties.user_id", "langfuse.user.id")
# The id a producer gives the turn in its own systems (e.g. the audit log's task id).
TASK_ID_KEY = "trace_audit.task_id"
TOOL_NAME = ("gen_ai.tool.name", "tool.name", "traceloop.entity.name")
# Pydantic AI's instrumentation version 2 spells a tool's arguments and result `tool_arguments` /
# `tool_response` (version 3 on: the GenAI names); Langfuse's SDK `langfuse.observation.input/output`.
TOOL_ARGS = ("gen_ai.tool.call.arguments", "input.value", "traceloop.entity.input", "tool_arguments",
             "langfuse.observation.input")
TOOL_RESULT = ("gen_ai.tool.call.result", "output.value", "traceloop.entity.output", "tool_response",
               "langfuse.observation.output")
MODEL = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name", "langfuse.observation.model.name")
PROVIDER = ("gen_ai.provider.name", "gen_ai.system")
STEP_PROVIDER = ("gen_ai.provider.name", "gen_ai.system", "llm.provider")
INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt",
                "llm.usage.prompt_tokens")
OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion",
                 "llm.usage.completion_tokens")
# Read in Python for the turn's request and reply (load/otlp_rebuild._texts). Pydantic AI's agent run
# span: `final_result` (the output), `pydantic_ai.all_messages` (the run's messages, GenAI parts;
# instrumentation version 1: `all_messages_events`); Langfuse's trace and observation input/output.
TEXT_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "input.value", "output.value",
             "traceloop.entity.input", "traceloop.entity.output", "final_result", "pydantic_ai.all_messages",
             "all_messages_events", "langfuse.trace.input", "langfuse.trace.output", "langfuse.observation.input",
             "langfuse.observation.output")
# How a span says what it is, beyond gen_ai.operation.name / OpenInference / OpenLLMetry kinds.
LANGFUSE_TYPE = "langfuse.observation.type"      # agent | tool | generation | chain | span | event ...
LANGFUSE_LEVEL = "langfuse.observation.level"    # ERROR fails the observation
LANGFUSE_STATUS_MESSAGE = "langfuse.observation.status_message"
MCP_METHOD = "mcp.method.name"                   # tools/call is a tool call (the operation name is optional)
MCP_TOOL_CALL = "tools/call"
# Pydantic AI span names when the span has no gen_ai.operation.name (instrumentation before the
# GenAI names): the agent run, a tool call, an output function run by the model's tool call.
AGENT_SPAN_NAMES = ("agent run",)
TOOL_SPAN_NAMES = ("running tool", "running output function")
INDEXED_PREFIXES = ("llm.input_messages.", "llm.output_messages.", "gen_ai.prompt.", "gen_ai.completion.")
