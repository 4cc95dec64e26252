"""LangChain message lists: a file of messages, one conversation.

`messages_to_dict(messages)` (langchain_core/messages/base.py) writes a JSON array of
`{type, data}`; dumping each message's `model_dump()` gives `{type: human|ai|tool|system,
content, tool_calls, tool_call_id, status, ...}`. Either way every record of the file is one
message, so this reader takes the file's records together (all the records of one frame, in
order: a JSON array of up to json_documents.ARRAY_FRAME_RECORDS messages, or a JSON-lines block) and
reads them as one chat (`chat.conversation_rows`: roles, one step per tool call, a ToolMessage
with `status: "error"` or an error result fails its step). The task is `langchain:h<10 hex>`,
a hash of the messages, so the same file always gets the same id.

A state dump that holds its messages under `messages` (LangGraph's `MessagesState`) is a
single record and is read by the chat reader.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable

from ..base import Decoded, PythonReader, RecordContext, RowError, TABLES, rows_to_table
from .chat import conversation_rows
from .conversation import LANGCHAIN_TYPES, Transcript

_TYPES = ", ".join(f"'{t}'" for t in sorted(LANGCHAIN_TYPES))


class LangChainMessagesReader(PythonReader):
    name = "langchain"
    # {type, data}: messages_to_dict; {type, content} with no role: a model_dump of a message.
    claims = [("message", "list_contains(k, 'type') AND NOT list_contains(k, 'role') AND "
                          "(list_contains(k, 'data') OR list_contains(k, 'content')) AND "
                          f"json_extract_string(raw, '$.type') IN ({_TYPES})")]

    def decode_records(self, records: list[tuple[int, str]], ctx_factory: Callable[[int], RecordContext]) -> Decoded:
        out = Decoded()
        if not records:
            return out
        parsed: list[tuple[int, str, Any]] = []
        for line, raw in records:
            try:
                parsed.append((line, raw, json.loads(raw)))
            except (ValueError, RecursionError) as exc:
                out.errors.append((line, raw, f"langchain message could not be read: {exc}"))
        if not parsed:
            return out
        first = parsed[0][0]
        ctx = ctx_factory(first)
        digest = hashlib.sha256("\n".join(raw for _, raw, _ in parsed).encode()).hexdigest()[:10]
        transcript = Transcript(f"langchain:h{digest}", self.name)
        try:
            conversation_rows(transcript, [m for _, _, m in parsed], "message")
        except RowError as exc:
            out.errors.extend((line, raw, f"langchain messages from line {first}: {exc}") for line, raw, _ in parsed)
            return out
        lines = [line for line, _, _ in parsed]
        got = transcript.rows()
        for table in TABLES:
            rows = getattr(got, table)
            for row in rows:
                index = (row.get("metadata") or {}).get("message_index")
                row["source_line"] = lines[index] if isinstance(index, int) and 0 <= index < len(lines) else first
            if rows:
                out.add(table, rows_to_table(table, rows))
        return out
