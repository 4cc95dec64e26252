"""One rule = one `.sql` file: a TOML header in a leading comment block, then one SELECT.

    -- id = "verified_false"
    -- title = "Step succeeded but the read-back did not confirm it"
    -- severity = "warn"
    -- description = "..."
    -- message = "step {seq} {tool}: success without a confirming read-back"
    -- [params]
    -- max_calls = 10
    SELECT ... WHERE n > $max_calls

Files whose name starts with `_` are not rules but shared relations (the turn
model): the engine materialises each once per run as a temp table named by the
stem without the underscore, before any rule runs, in dependency order. A file
declares what it reads in its header, `uses = ["_turn_replies"]`; the file
still names the table in its SQL (`FROM turn_replies`), so it stays one
self-contained query that sqlglot can transpile for another engine. A declared
dependency that does not exist, or that the SQL never reads, is a load error;
a model table read without being declared is a load error too (it would be
built too late or not at all).

Parameters are `$name` placeholders, always bound, never formatted into SQL. A
parameter declared in the header but unused, or used but neither declared nor
provided by the engine (see `GLOBAL_PARAMS`), is a load error naming the file
and line.
"""

from __future__ import annotations

import functools
import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .sql_params import param_uses, strip_sql_noise

Severity = Literal["info", "warn", "review", "block"]
SEVERITY_RANK = {"allow": 0, "info": 0, "warn": 1, "review": 2, "block": 3}

# Parameters the engine binds for every rule that uses them (no header entry needed).
GLOBAL_PARAMS = {
    "now": "the evaluation instant (--now, default the wall clock), TIMESTAMPTZ",
    "write_tool_re": "legacy: regex of the default write-tool prefixes and [write_tools]; the built-in rules "
                     "join tool_classes instead (verbs anywhere in the name, MCP annotations)",
    "unchecked_sources_re": "regex of task sources that cannot record a read-back (config [write_tools])",
    "write_tool_exclude_re": "regex of tool names that never count as writes (config [write_tools] exclude)",
    "reply_window_seconds": "how long after a task a reply without task_id may still belong to it",
    "not_started_re": "step errors meaning the step never started",
    "not_created_re": "step error / detail / result text meaning success without creating anything",
}

_STEM = re.compile(r"^_?[a-z][a-z0-9_]*$")


class RuleLoadError(Exception):
    """A rule file that cannot be used; the text names file:line and what to do."""


class RuleHeader(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    severity: Severity = "warn"
    description: str = ""
    message: str = Field("", description="template; {column} is replaced by that result column")
    params: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True
    evidence_steps: Literal["none", "write", "all"] = Field(
        "none", description="attach the finding's task steps to evidence.tools")
    uses: list[str] = Field(default_factory=list, description="turn-model files this query reads, by file stem")

    @field_validator("params")
    @classmethod
    def _param_values(cls, v: dict[str, Any]) -> dict[str, Any]:
        for name, value in v.items():
            if isinstance(value, dict):
                raise ValueError(f"param {name}: tables are not supported; use a scalar or a list")
            if isinstance(value, list) and not all(isinstance(x, str) for x in value):
                raise ValueError(f"param {name}: lists must hold strings")
        return v


@dataclass
class Rule:
    header: RuleHeader
    sql: str
    path: Path
    sha256: str
    used_params: list[str]
    body_line: int  # line number of the first SQL line, for messages
    python: Any = None  # a Python rule's check function (see python_rules.py)
    kind: str = "sql"  # sql | python | model
    header_lines: dict[str, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.header.id

    @property
    def is_model(self) -> bool:
        return self.kind == "model"

    @property
    def table(self) -> str:
        return self.path.stem.lstrip("_")

    @property
    def dependencies(self) -> list[str]:
        """The turn-model tables this query reads (from the header's `uses`)."""
        return [u.lstrip("_") for u in self.header.uses]


def split_header(text: str) -> tuple[str, int]:
    """(TOML text of the leading comment block, line number where the SQL starts)."""
    lines = text.splitlines()
    toml_lines = []
    i = 0
    while i < len(lines) and (lines[i].lstrip().startswith("--") or not lines[i].strip()):
        stripped = lines[i].lstrip()
        if stripped.startswith("--"):
            body = stripped[2:]
            toml_lines.append(body[1:] if body.startswith(" ") else body)
        else:
            toml_lines.append("")
        i += 1
    return "\n".join(toml_lines), i + 1


def _where(path: Path, line: int) -> str:
    return f"{path}:{line}"


def load_rule_file(path: Path) -> Rule:
    text = path.read_text("utf-8")
    header_text, body_line = split_header(text)
    if not header_text.strip():
        raise RuleLoadError(f"{_where(path, 1)}: no header; start the file with a TOML comment block "
                            "(-- id = \"...\", -- title = \"...\", -- severity = \"warn\")")
    try:
        raw = tomllib.loads(header_text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleLoadError(f"{_where(path, 1)}: header is not valid TOML: {exc}") from None
    try:
        header = RuleHeader.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'header'}: {e['msg']}" for e in exc.errors())
        raise RuleLoadError(f"{_where(path, 1)}: bad header: {problems}") from None
    if not _STEM.match(path.stem):
        raise RuleLoadError(f"{_where(path, 1)}: file name must be lower_snake_case (it is the rule id)")
    if header.id != path.stem:
        raise RuleLoadError(f"{_where(path, 1)}: header id {header.id!r} must equal the file name {path.stem!r}")
    header_lines = {}
    for n, line in enumerate(header_text.splitlines(), start=1):
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=", line)
        if m:
            header_lines.setdefault(m.group(1), n)
    sql_lines = text.splitlines()[body_line - 1:]
    sql = "\n".join(sql_lines).strip().rstrip(";")
    if not sql:
        raise RuleLoadError(f"{_where(path, body_line)}: no SQL after the header")
    uses = {name: line + body_line - 1 for name, line in param_uses("\n".join(sql_lines)).items()}
    for name, line in uses.items():
        if name not in header.params and name not in GLOBAL_PARAMS:
            raise RuleLoadError(
                f"{_where(path, line)}: parameter ${name} is used but not declared; add it under [params] "
                f"in the header with a default (engine-provided: {', '.join(sorted(GLOBAL_PARAMS))})")
    for name in header.params:
        if name not in uses:
            raise RuleLoadError(f"{_where(path, header_lines.get(name, 1))}: parameter {name} is declared but "
                                f"the SQL never uses ${name}; remove it or use it")
        if name in GLOBAL_PARAMS:
            raise RuleLoadError(f"{_where(path, header_lines.get(name, 1))}: parameter {name} is provided by the "
                                "engine; do not declare it")
    return Rule(header=header, sql=sql, path=path, sha256=hashlib.sha256(text.encode()).hexdigest(),
                used_params=sorted(uses), body_line=body_line,
                kind="model" if path.stem.startswith("_") else "sql", header_lines=header_lines)


def _reads_table(sql: str, table: str) -> int | None:
    """First line (1-based) where `sql` names `table` outside comments and strings, else None."""
    clean = _without_noise(sql)
    m = re.search(rf"(?<![$\w]){re.escape(table)}\b", clean)
    return None if m is None else clean.count("\n", 0, m.start()) + 1


@functools.lru_cache(maxsize=256)
def _without_noise(sql: str) -> str:
    # every rule's SQL is checked against every model table: strip it once, not once per table
    return strip_sql_noise(sql)


def check_dependencies(rules: list[Rule]) -> None:
    """Every `uses` entry names a turn-model file the SQL reads; every model table read is declared."""
    models = {r.path.stem: r for r in rules if r.kind == "model"}
    for rule in rules:
        if rule.kind not in ("sql", "model"):
            continue
        line = rule.header_lines.get("uses", 1)
        for dep in rule.header.uses:
            if dep not in models:
                raise RuleLoadError(f"{_where(rule.path, line)}: uses {dep!r}, which is not a turn-model file; "
                                    f"known: {', '.join(sorted(models)) or 'none'}")
            if dep == rule.path.stem:
                raise RuleLoadError(f"{_where(rule.path, line)}: a file cannot use itself")
            if _reads_table(rule.sql, models[dep].table) is None:
                raise RuleLoadError(f"{_where(rule.path, line)}: uses {dep!r} but the SQL never reads "
                                    f"{models[dep].table}; remove it from uses or read the table")
        for stem, model in models.items():
            if stem == rule.path.stem or stem in rule.header.uses:
                continue
            at = _reads_table(rule.sql, model.table)
            if at is not None:
                raise RuleLoadError(f"{_where(rule.path, at + rule.body_line - 1)}: reads the turn-model table "
                                    f"{model.table} without declaring it; add uses = [\"{stem}\"] to the header")


def builtin_rules_dir() -> Path:
    return Path(__file__).resolve().parent / "rules"


def load_rules(extra_dirs: list[str | Path] | None = None) -> list[Rule]:
    """Built-in rules, then user rules (`.sql` and `.py`) from extra_dirs; ids must be unique."""
    from .python_rules import load_python_rule

    rules: list[Rule] = []
    dirs = [builtin_rules_dir()] + [Path(d) for d in (extra_dirs or [])]
    seen: dict[str, Path] = {}
    for d in dirs:
        if not d.is_dir():
            raise RuleLoadError(f"{d}: rules directory not found")
        for path in sorted(d.iterdir()):
            if path.suffix == ".sql" and "." in path.stem:
                continue  # `<id>.<engine>.sql`: a per-engine override, read by the engine layer
            if path.suffix == ".sql":
                rule = load_rule_file(path)
            elif path.suffix == ".py" and d != builtin_rules_dir() and not path.name.startswith("__"):
                rule = load_python_rule(path)
            else:
                continue
            if rule.id in seen:
                raise RuleLoadError(f"{path}:1: rule id {rule.id!r} is already defined by {seen[rule.id]}")
            seen[rule.id] = path
            rules.append(rule)
    check_dependencies(rules)
    return rules
