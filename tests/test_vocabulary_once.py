"""Each name of the shared vocabulary is defined once (issue 13): no product module outside the
one that owns it spells the same list again. The owners: queries/warehouse/ (tables, keys,
columns and their types, the Parquet metadata key), ingest/read/vocabulary.py (statuses, roles,
kinds, the words sources spell them with, failure words, the epoch rule),
ingest/read/otlp/attributes.py (OTLP attribute names)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from trace_audit.ingest.read import vocabulary as v
from trace_audit.ingest.read.otlp import attributes
from trace_audit.queries.warehouse import tables

ROOT = Path(__file__).resolve().parent.parent
# sample_data writes inputs as producers would spell them; it reads nothing of ours.
PRODUCT = ("cli", "ingest", "queries", "dashboard")

OWNED = {
    "the trace tables": (set(tables.TRACE_TABLES), "queries/warehouse/tables.py"),
    "task statuses": (set(v.TASK_STATUSES), "ingest/read/vocabulary.py"),
    "step statuses": (set(v.STEP_STATUSES), "ingest/read/vocabulary.py"),
    "step kinds": (set(v.STEP_KINDS), "ingest/read/vocabulary.py"),
    "roles": (set(v.ROLES), "ingest/read/vocabulary.py"),
    "success words": (set(v.SUCCESS_WORDS), "ingest/read/vocabulary.py"),
    "failed words": (set(v.FAILED_WORDS), "ingest/read/vocabulary.py"),
    "running words": (set(v.RUNNING_WORDS), "ingest/read/vocabulary.py"),
    "failed statuses of a tool result": (set(v.FAILED_STATUSES), "ingest/read/vocabulary.py"),
    "exit code keys": (set(v.EXIT_CODE_KEYS), "ingest/read/vocabulary.py"),
    "conversation attributes": (set(attributes.CONVERSATION_KEYS), "ingest/read/otlp/attributes.py"),
    "user attributes": (set(attributes.USER_KEYS), "ingest/read/otlp/attributes.py"),
    "tool name attributes": (set(attributes.TOOL_NAME), "ingest/read/otlp/attributes.py"),
    "text attributes": (set(attributes.TEXT_KEYS), "ingest/read/otlp/attributes.py"),
}
# Single strings that are vocabulary: only their owner writes them as a Python literal.
OWNED_STRINGS = {
    tables.PARQUET_TABLE_KEY: "queries/warehouse/tables.py",
    v.VERIFY_TOOL: "ingest/read/vocabulary.py",
    attributes.TASK_ID_KEY: "ingest/read/otlp/attributes.py",
}
# Module-level names that used to hold copies: each is bound in one module only.
ONE_BINDING = {"KEYS": "queries/warehouse/tables.py", "JSON_COLUMNS": "ingest/redact/columns.py",
               "TABLE_KEY": None, "ROLES": "ingest/read/vocabulary.py"}


def product_modules():
    for d in PRODUCT:
        for path in sorted((ROOT / d).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text("utf-8"))


def literal_strings(node: ast.AST) -> set[str] | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple") \
            and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and \
            all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return {e.value for e in node.elts}
    return None


def docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def copies() -> list[str]:
    found = []
    for rel, tree in product_modules():
        skip = docstrings(tree)
        for node in ast.walk(tree):
            words = literal_strings(node)
            if words:
                for what, (owned, owner) in OWNED.items():
                    if words == owned and rel != owner:
                        found.append(f"{rel}:{node.lineno}: {what} spelled again (owned by {owner})")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                owner = OWNED_STRINGS.get(node.value)
                if owner and rel != owner:
                    found.append(f"{rel}:{node.lineno}: {node.value!r} spelled again (owned by {owner})")
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            for t in targets:
                if isinstance(t, ast.Name) and t.id in ONE_BINDING and rel != ONE_BINDING[t.id]:
                    found.append(f"{rel}:{node.lineno}: {t.id} bound again (owned by {ONE_BINDING[t.id]})")
    return found


def test_every_name_of_the_shared_vocabulary_is_defined_once():
    assert copies() == []


@pytest.mark.parametrize("what", sorted(OWNED))
def test_the_owner_defines_it(what):
    owned, owner = OWNED[what]
    tree = ast.parse((ROOT / owner).read_text("utf-8"))
    assert any(literal_strings(n) == owned for n in ast.walk(tree))
