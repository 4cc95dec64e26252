"""`trace-audit.toml`: what a team tunes without touching rule files.

    rules_dir = "my_rules"                 # extra .sql / .py rules

    [rules.stuck_running]                  # one table per rule id
    severity = "review"
    params = { threshold_minutes = 30 }

    [rules.final_answer_contains]          # off until configured
    enabled = true
    params = { pattern = "数据来源|source", agent_re = "^todo-aggregator" }

    [lexicon]                              # extends queries/lexicon/claims.toml
    claim = ["已为您登记"]
    honest = ["暂不支持"]

    [write_tools]
    patterns = ["^archive_"]               # added to the default prefixes
    names = ["reminder.create"]
    exclude = ["transfer_to_human_agents"]

    forbidden_tools = ["delete_database", "drop_table", "send_mass_mail", "wipe_user"]

    [[argument_bounds]]
    tool = "^search"                       # regex on the tool name
    arg = "top_k"
    min = 1
    max = 20
    required = false                       # a missing argument is not a violation (the default)

Validated by pydantic; unknown keys and wrong types are reported with their
dotted path and what is allowed.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .rulefile import Severity

DEFAULT_CONFIG_NAME = "trace-audit.toml"

# Tools whose name starts with one of these verbs write something.
DEFAULT_WRITE_PREFIXES = [
    "create", "add", "update", "set", "delete", "remove", "send", "book", "cancel", "modify", "insert", "save",
    "write", "put", "post", "schedule", "exchange", "return", "place", "submit", "edit", "change", "patch",
    "upsert", "register", "reserve", "assign", "move", "rename", "archive", "publish", "enable", "disable",
    "drop", "reset", "mark", "refund", "transfer_money", "pay",
]


# Coding agents' tools, by exact name: file edits and shell commands change the workspace, so
# they are writes, and a coding agent's "I updated the file" is judged by them.
DEFAULT_WRITE_NAMES = [
    "edit", "create", "insert", "write", "str_replace", "str_replace_editor", "str_replace_based_edit_tool",
    "write_file", "edit_file", "create_file", "apply_patch", "multiedit", "multi_edit", "notebookedit",
    "bash", "shell", "execute_bash", "run_shell_command", "run_command", "execute_command",
    "computer_terminal", "computerterminal", "execute_code", "python", "ipython", "code_interpreter",
]


class ConfigError(Exception):
    """A config problem, worded for the user."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RuleSettings(_Strict):
    enabled: bool | None = None
    severity: Severity | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class LexiconExtension(_Strict):
    claim: list[str] = Field(default_factory=list)
    honest: list[str] = Field(default_factory=list)
    cue: list[str] = Field(default_factory=list)
    not_started: list[str] = Field(default_factory=list)
    not_created: list[str] = Field(default_factory=list)


class WriteTools(_Strict):
    patterns: list[str] = Field(default_factory=list, description="regexes added to the default prefixes")
    names: list[str] = Field(default_factory=list, description="exact tool names that write")
    exclude: list[str] = Field(default_factory=list, description="exact tool names that never count as writes")
    read_names: list[str] = Field(default_factory=list, description="exact tool names that only read")
    replace_defaults: bool = False
    unchecked_sources: list[str] = Field(
        default_factory=lambda: ["chat", "otlp", "inspect", "swe-agent", "ag2", "langchain", "langsmith",
                                 "openai-agents", "langfuse"],
        description="task sources that cannot record a read-back: a success step with verified NULL counts as done")


class ArgumentBound(_Strict):
    tool: str = Field(description="regex matched against the tool name")
    arg: str = Field(description="argument key (dots for nesting: filter.limit)")
    min: float | None = None
    max: float | None = None
    required: bool = Field(True, description="a missing argument is a violation")


class Linking(_Strict):
    reply_window_seconds: int = Field(120, ge=0)


class Config(_Strict):
    rules_dir: str | None = None
    rules: dict[str, RuleSettings] = Field(default_factory=dict)
    lexicon: LexiconExtension = Field(default_factory=LexiconExtension)
    write_tools: WriteTools = Field(default_factory=WriteTools)
    forbidden_tools: list[str] | None = None
    argument_bounds: list[ArgumentBound] = Field(
        default_factory=lambda: [ArgumentBound(tool="^search", arg="top_k", min=1, max=20, required=False)])
    linking: Linking = Field(default_factory=Linking)
    # Read at ingest, not by the rules: kept out of the rule-run digest. Typed by the room that uses it
    # (ingest/redact/config.py, read by cli/settings.py), so the rules' config does not depend on ingest.
    redaction: dict[str, Any] = Field(default_factory=dict)
    base_dir: str | None = Field(None, exclude=True)

    def digest(self) -> str:
        data = self.model_dump(mode="json", exclude={"base_dir", "redaction"})
        return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def write_tool_re(self) -> str:
        import re

        parts = [] if self.write_tools.replace_defaults else [
            "^(" + "|".join(DEFAULT_WRITE_PREFIXES) + ")[_.-]",
            "^(" + "|".join(re.escape(n) for n in DEFAULT_WRITE_NAMES) + ")$"]
        parts += [f"({p})" for p in self.write_tools.patterns]
        parts += ["^" + re.escape(n) + "$" for n in self.write_tools.names]
        return "(?i)" + "|".join(parts) if parts else "[^\\s\\S]"  # never matches (RE2 has no (?!))

    def resolved_rules_dir(self) -> str | None:
        if not self.rules_dir:
            return None
        p = Path(self.rules_dir)
        if not p.is_absolute() and self.base_dir:
            p = Path(self.base_dir) / p
        return str(p)


def explain_validation(exc: ValidationError, where: str, prefix: str = "") -> str:
    """One line per pydantic error: the dotted path (after `prefix`) and what is allowed."""
    lines = []
    for e in exc.errors():
        path = prefix + ".".join(str(x) for x in e["loc"])
        if e["type"] == "extra_forbidden":
            lines.append(f"{where}: unknown key {path!r}; check the spelling (see docs/rules.md for the keys)")
        else:
            lines.append(f"{where}: {path}: {e['msg']} (got {e.get('input')!r})")
    return "\n".join(lines)


def parse_config(data: dict[str, Any], where: str = DEFAULT_CONFIG_NAME, base_dir: str | None = None) -> Config:
    try:
        cfg = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(explain_validation(exc, where)) from None
    cfg.base_dir = base_dir
    return cfg


def load_config(path: str | Path | None = None) -> Config:
    """The config at `path`; without a path, ./trace-audit.toml if it exists, else the defaults."""
    if path is None:
        default = Path(DEFAULT_CONFIG_NAME)
        if not default.exists():
            return Config()
        path = default
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"config file {p} not found")
    try:
        data = tomllib.loads(p.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    return parse_config(data, str(p), str(p.resolve().parent))
