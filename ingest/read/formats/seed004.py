"""Seed-004 table dumps (the three-layer-defence system): agent_task, agent_step,
audit_logs and the chat messages table, as a Java/MySQL system exports them.

MySQL habits handled: ids as integers, `args_json` as an escaped JSON string,
`verified` as 0/1, naive local timestamps ('2026-11-08 08:00:00', read in
--tz), upper-case statuses, NULLs. Each record is recognised by its fields,
never by the file it came in. Columns a dump adds beyond the documented ones
(agent_version, model, prompt_version, ...) are used when known and kept in
`metadata` otherwise.
"""

from __future__ import annotations

from ..fields import BOOL, INT, JSON_TEXT, STATUS_STEP, STATUS_TASK, STR, TS, Field
from ..vocabulary import MESSAGE_ROLE, STEP_KIND
from ..field_reader import FieldReader, Mapping

AGENT_TASK = [
    Field("task_id", STR, ("id",), required=True), Field("user_id", STR), Field("conversation_id", STR),
    Field("goal", STR), Field("status", STATUS_TASK), Field("total_steps", INT), Field("success_steps", INT),
    Field("replanned", BOOL), Field("started_at", TS, ("create_time", "start_time")),
    Field("finished_at", TS, ("finish_time", "end_time")), Field("final_answer", STR, ("final_answer", "reply")),
    Field("agent_version", STR), Field("model", STR, ("model", "llm_version")), Field("prompt_version", STR),
    Field("plan", JSON_TEXT, ("plan", "plan_json")),
]
AGENT_STEP = [
    Field("step_id", STR, ("id",)), Field("task_id", STR, required=True), Field("seq", INT, required=True),
    Field("tool", STR), Field("kind", STR), Field("args", JSON_TEXT, ("args_json", "args")), Field("reason", STR),
    Field("status", STATUS_STEP), Field("verified", BOOL), Field("attempts", INT), Field("error", STR),
    Field("detail", STR), Field("result", JSON_TEXT, ("result", "result_json")),
    Field("started_at", TS, ("create_time", "start_time")), Field("ended_at", TS, ("finish_time", "end_time", "update_time")),
]
AUDIT_LOG = [
    Field("audit_id", STR, ("id",), required=True), Field("user_id", STR), Field("task_id", STR),
    Field("action", STR), Field("result", STR), Field("created_at", TS, ("create_time",)), Field("detail", STR),
]
MESSAGE = [
    Field("message_id", STR, ("id",), required=True), Field("conversation_id", STR), Field("user_id", STR),
    Field("role", STR), Field("content", STR), Field("created_at", TS, ("create_time",)), Field("task_id", STR),
]


class Seed004Reader(FieldReader):
    name = "seed004"
    claims = [
        ("agent_step", "list_contains(k, 'task_id') AND list_contains(k, 'seq') "
                       "AND (list_contains(k, 'tool') OR list_contains(k, 'args_json'))"),
        ("agent_task", "list_contains(k, 'id') AND (list_contains(k, 'goal') OR list_contains(k, 'total_steps') "
                       "OR list_contains(k, 'success_steps'))"),
        ("audit_log", "list_contains(k, 'action') AND list_contains(k, 'result') AND NOT list_contains(k, 'role')"),
        ("message", "list_contains(k, 'role') AND list_contains(k, 'content') AND NOT list_contains(k, 'messages') "
                    "AND NOT list_contains(k, 'traj')"),
    ]
    mappings = {
        "agent_task": Mapping("tasks", AGENT_TASK, {"source": "'seed004'"}),
        "agent_step": Mapping("steps", AGENT_STEP, {"kind": STEP_KIND}),
        "audit_log": Mapping("audit_logs", AUDIT_LOG, {"source": "'seed004'", "result": "upper(trim(result))"}),
        "message": Mapping("messages", MESSAGE, {"source": "'seed004'", "role": MESSAGE_ROLE}),
    }
