"""AG2 (AutoGen) group-chat logs, as in the Who&When failure-attribution dataset.

A record holds the chat under `history` (Who&When) or `chat_history` (AG2's `ChatResult`):
a list of `{content, role, name}`. Who&When adds `question`, `ground_truth`, `question_ID`,
`level`, and its labels `mistake_agent`, `mistake_step` (0-based into `history`),
`mistake_reason`, `is_correct` / `is_corrected` (Who&When README, mingyin1/Agents_Failure_Attribution).
Two kinds of chat are in it:

- Algorithm-Generated (AG2 CaptainAgent): `role` is AG2's own user/assistant view, `name` the
  speaking agent. Code is run by the `Computer_terminal` agent, whose reply starts with
  `exitcode: <n> (execution succeeded|failed)`;
- Hand-Crafted (Magentic-One): `role` names the speaker (`human`, `Orchestrator (thought)`,
  `Orchestrator (-> WebSurfer)`, `WebSurfer`, `FileSurfer`, `Coder`, `ComputerTerminal`).

One record is one task `ag2:<question_ID>` (else `ag2:h<10 hex>`). Every history entry is a
message (message_index = its position in `history`, so `mistake_step` points at it): the
human is `user`; a code executor (`Computer_terminal`, `ComputerTerminal`) is `tool`; every
other agent is `assistant`, the agent's name in `metadata.agent`. A code executor's reply is a
step (tool = the executor, args = the code blocks of the message before it); an exit code
other than 0 fails it. A tool agent's (WebSurfer, FileSurfer) reply to an orchestrator's
request is a step too (tool = the agent, args = the request), and its text is that step's
output, `tool` like an executor's ("I clicked 'See more results'" is what the browser did, told
to the orchestrator, not to the user). The orchestrator's own thinking (`Orchestrator (thought)`:
its plan and progress ledger) and its instructions to an agent (`Orchestrator (-> WebSurfer)`)
are `system`: orchestration the user never reads, as a system prompt is. Only what reaches the
user (`Orchestrator (termination condition)` / `(final answer)`, or a speaker with no such note)
is a reply to judge.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ..base import PythonReader, RecordContext, RowError, Rows
from .conversation import Transcript, content_text
from .seed001 import text_or_json

EXECUTORS = frozenset({"computer_terminal", "computerterminal", "code_executor", "executor", "user_proxy"})
TOOL_AGENTS = frozenset({"websurfer", "filesurfer", "coder"})
_CODE_BLOCK = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_LABELS = ("question_ID", "level", "ground_truth", "is_correct", "is_corrected", "mistake_agent",
           "mistake_step", "mistake_reason")
_TERMINATE = re.compile(r"^\s*TERMINATE\s*$")


# Magentic-One's notes on an orchestrator's message that the user never reads.
_UNSEEN_NOTES = frozenset({"thought"})


def _speaker(entry: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(who spoke, whom an orchestrator addressed, the note in brackets): Magentic-One puts all
    three in `role` ("Orchestrator (-> WebSurfer)", "Orchestrator (thought)")."""
    name = entry.get("name")
    role = str(entry.get("role") or "")
    if isinstance(name, str) and name.strip():
        return name.strip(), None, None
    found = re.match(r"^\s*([^()]+?)\s*\((?:->\s*([^)]+)|([^)]*))\)\s*$", role)
    if found:
        addressed = found.group(2).strip() if found.group(2) else None
        note = found.group(3).strip().lower() if found.group(3) else None
        return found.group(1), addressed, note
    return role.strip(), None, None


class Ag2Reader(PythonReader):
    name = "ag2"
    claims = [("chat", "(list_contains(k, 'history') AND (list_contains(k, 'question') OR list_contains(k, 'mistake_agent'))) "
                       "OR (list_contains(k, 'chat_history') AND NOT list_contains(k, 'messages'))")]

    def rows(self, record: dict[str, Any], ctx: RecordContext) -> Rows:
        key = "history" if "history" in record else "chat_history"
        history = record.get(key)
        if not isinstance(history, list):
            raise RowError(f"field {key}: expected a list of messages, got {type(history).__name__}")
        own = text_or_json(record.get("question_ID"))
        task_id = f"ag2:{own}" if own else "ag2:h" + hashlib.sha256(
            json.dumps(record, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[:10]
        transcript = Transcript(task_id, self.name)
        asked: dict[str, str] = {}  # tool agent -> the orchestrator's latest request to it
        previous_text = None
        for pos, entry in enumerate(history):
            if not isinstance(entry, dict):
                raise RowError(f"field {key}[{pos}]: expected a message object, got {type(entry).__name__}")
            text = content_text(entry.get("content"))
            who, addressed, note = _speaker(entry)
            low = who.lower().replace(" ", "")
            role = "user" if low in ("human", "user") and not entry.get("name") else \
                "tool" if low in EXECUTORS else "system" if addressed or note in _UNSEEN_NOTES else "assistant"
            meta = {"agent": who, "source_role": entry.get("role")}
            if addressed:
                meta["to"] = addressed
            if role == "tool":
                at = pos - 1 if pos else 0
                code = [b for _, b in _CODE_BLOCK.findall(previous_text or "")]
                step = transcript.call(who, {"code": code} if code else None, at_message=at)
                transcript.add_message(role, text, meta=meta)
                transcript.settle(step, text, text=text, shell=True)
            elif low in TOOL_AGENTS and role == "assistant" and who in asked:
                step = transcript.call(who, {"request": asked.pop(who)}, at_message=pos - 1 if pos else 0)
                transcript.add_message("tool", text, meta=meta)
                transcript.settle(step, text, text=text)
            else:
                transcript.add_message(role, text, meta=meta)
            if addressed:
                asked[addressed] = text
            previous_text = text
        final = next((m["content"] for m in reversed(transcript.messages) if m["role"] == "assistant"
                      and isinstance(m["content"], str) and m["content"].strip()
                      and not _TERMINATE.match(m["content"])), None)
        question = text_or_json(record.get("question"))
        meta = {k: record[k] for k in _LABELS if record.get(k) is not None}
        if record.get("summary") is not None:
            meta["summary"] = record["summary"]
        return transcript.rows(goal=question, final_answer=final, metadata=meta or None)
