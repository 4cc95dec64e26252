"""Python rules: for what SQL cannot say.

A `.py` file in a user rules directory (`--rules-dir`) defines

    RULE = {"id": "<file stem>", "title": "...", "severity": "warn", "message": "..."}

    def check(turn):          # one turn at a time
        ...                   # -> list of dicts, one per finding

`turn` is a dict: `task` (the tasks row), `steps` (its steps, by seq) and
`replies` (the assistant replies linked to it, see `_turn_replies.sql`), each
row a plain dict. Every returned dict may carry `seq` and `message`; all other
keys become the finding's evidence. A rule that raises is recorded as a failed
rule run; the other rules still run.

Python rules run row by row, so they are for small rule sets and modest
history; the built-in catalogue is SQL.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from pydantic import ValidationError

from .rulefile import Rule, RuleHeader, RuleLoadError


def load_python_rule(path: Path) -> Rule:
    text = path.read_text("utf-8")
    spec = importlib.util.spec_from_file_location(f"trace_audit_user_rule_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any import problem is the user's to fix
        raise RuleLoadError(f"{path}:1: cannot import the rule: {type(exc).__name__}: {exc}") from None
    raw = getattr(module, "RULE", None)
    check = getattr(module, "check", None)
    if not isinstance(raw, dict) or not callable(check):
        raise RuleLoadError(f"{path}:1: a Python rule defines RULE = {{...}} (its header) and def check(turn)")
    try:
        header = RuleHeader.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise RuleLoadError(f"{path}:1: bad RULE header: {problems}") from None
    if header.id != path.stem:
        raise RuleLoadError(f"{path}:1: RULE id {header.id!r} must equal the file name {path.stem!r}")
    return Rule(header=header, sql="", path=path, sha256=hashlib.sha256(text.encode()).hexdigest(),
                used_params=[], body_line=1, python=check, kind="python")
