"""SWE-agent trajectories (`.traj`): one coding-agent run on one issue.

A `.traj` file is `{trajectory: [{action, observation, response, thought, state,
execution_time}], history: [{role, content, agent, message_type, tool_calls, is_demo}],
info: {exit_status, submission, model_stats, ...}, environment, replay_config}`
(SWE-agent `sweagent/types.py`, `AgentRunResult`). One file becomes one task:

- the first non-demonstration user message of `history` is the goal (the issue text);
- each `trajectory` entry is an assistant message (its `response`, else `thought`), one step
  (the `action`), and a tool message (the `observation`). The tool is the action's command
  when it is one of SWE-agent's own (`edit`, `create`, `str_replace_editor`, `open`,
  `find_file`, `submit`, ...) or the name of the function call in `history`; any other
  command line is `bash`. Edits and shell commands are writes (see `vocabulary.CODING_WRITE_TOOLS`);
- a step failed when its observation is a shell or editor failure (`vocabulary.failure` with
  `shell`: a traceback, "Your proposed edit has introduced new syntax error(s)", command not
  found, a usage message, a non-zero exit code): SWE-agent records no exit codes;
- the task id is `swe-agent:<instance>` (the run's `replay_config.agent.name` or
  `problem_statement.id`), else `swe-agent:h<10 hex>` (a hash of the run).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..base import PythonReader, RecordContext, RowError, Rows
from .conversation import Transcript, content_text, parsed_json
from .seed001 import text_or_json

# SWE-agent's own commands (its tool bundles); any other first word is a shell command.
COMMANDS = frozenset({
    "open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert", "append", "search_dir",
    "search_file", "find_file", "submit", "str_replace_editor", "filemap", "view", "str_replace",
    "undo_edit", "review_on_submit", "exit_forfeit", "exit_cost", "exit_context", "exit_error", "skip",
})
MAX_SUBMISSION_CHARS = 64 * 1024


class SweAgentReader(PythonReader):
    name = "swe-agent"
    claims = [("traj", "list_contains(k, 'trajectory') AND (list_contains(k, 'info') OR list_contains(k, 'history'))")]

    def rows(self, record: dict[str, Any], ctx: RecordContext) -> Rows:
        steps = record.get("trajectory")
        if not isinstance(steps, list):
            raise RowError(f"field trajectory: expected a list of steps, got {type(steps).__name__}")
        history = record.get("history") if isinstance(record.get("history"), list) else []
        info = record.get("info") if isinstance(record.get("info"), dict) else {}
        transcript = Transcript(self._task_id(record), self.name)
        goal = next((content_text(h.get("content")) for h in history if isinstance(h, dict)
                     and h.get("role") == "user" and not h.get("is_demo")), None)
        if goal is not None:
            transcript.add_message("user", goal)
        names = self._function_names(history)
        if len(names) != len(steps):
            names = []  # not one call per step: the names cannot be lined up, read the commands
        for i, entry in enumerate(steps):
            if not isinstance(entry, dict):
                raise RowError(f"field trajectory[{i}]: expected a step object, got {type(entry).__name__}")
            action = entry.get("action")
            if not isinstance(action, str):
                raise RowError(f"field trajectory[{i}].action: missing (every step needs the command it ran)")
            said = entry.get("response") or entry.get("thought")
            at = transcript.add_message("assistant", said if isinstance(said, str) else None)
            tool = names[i] if i < len(names) else self._tool(action)
            step = transcript.call(tool, {"command": action.rstrip("\n")}, reason=entry.get("thought"), at_message=at,
                                   meta={k: entry[k] for k in ("execution_time", "state") if entry.get(k) is not None})
            observation = entry.get("observation")
            text = observation if isinstance(observation, str) else text_or_json(observation)
            transcript.add_message("tool", text)
            transcript.settle(step, text, text=text, shell=True)
        meta = {"exit_status": info.get("exit_status"), "environment": record.get("environment")}
        submission = info.get("submission")
        if isinstance(submission, str):
            meta["submission"] = submission if len(submission) <= MAX_SUBMISSION_CHARS else \
                submission[:MAX_SUBMISSION_CHARS] + "…"
        stats = info.get("model_stats")
        meta["model_stats"] = parsed_json(stats) if isinstance(stats, str) else stats
        return transcript.rows(goal=goal, metadata={k: v for k, v in meta.items() if v not in (None, "", {})})

    def _task_id(self, record: dict[str, Any]) -> str:
        replay = parsed_json(record.get("replay_config"))
        for path in (("agent", "name"), ("problem_statement", "id")):
            node: Any = replay
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, str) and node.strip():
                return f"swe-agent:{node}"
        text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
        return "swe-agent:h" + hashlib.sha256(text.encode()).hexdigest()[:10]

    @staticmethod
    def _tool(action: str) -> str:
        words = action.strip().split(maxsplit=1)
        return words[0] if words and words[0] in COMMANDS else "bash"

    @staticmethod
    def _function_names(history: list[Any]) -> list[str]:
        """The function name of each action, in order, when the run used function calling."""
        names = []
        for h in history:
            if isinstance(h, dict) and h.get("role") == "assistant" and not h.get("is_demo") \
                    and isinstance(h.get("tool_calls"), list) and h["tool_calls"]:
                fn = h["tool_calls"][0].get("function") if isinstance(h["tool_calls"][0], dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                    names.append(fn["name"])
        return names
