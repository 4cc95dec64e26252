"""Rule SQL (DuckDB dialect) -> SQL for another engine, through sqlglot (a checked range of releases).

Each rule file is parsed once (cached by its content hash). Binding copies the
tree and replaces every `$name` placeholder by a typed literal, so no engine
ever sees a parameter marker or a value formatted into text by hand. A few
DuckDB functions whose meaning sqlglot does not carry over are rewritten for
ClickHouse here (see `_clickhouse_fixes`); everything else is sqlglot's own
translation, which is why the rules keep to docs/scale-out.md's portable subset.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Any

import sqlglot
from sqlglot import exp

from ..sql_params import placeholders

SOURCE_DIALECT = "duckdb"
# The sqlglot releases whose translation of every rule is pinned by tests/test_transpile_golden.py
# (checked: 28.0.0, 29.0.0, 30.0.0, 30.20.0, 30.29.0-30.31.0 give the same SQL; 27.4 does not).
# pyproject.toml declares the same range; a major release is not trusted until the test says so.
SQLGLOT_FLOOR = (28, 0)
SQLGLOT_BELOW = (31, 0)

_PARSED: dict[tuple[str, str], exp.Expression] = {}


class TranspileError(Exception):
    """A rule that sqlglot cannot parse or that binds a value it cannot type."""


def check_sqlglot_version() -> None:
    got = tuple(int(p) for p in re.findall(r"\d+", sqlglot.__version__)[:2])
    if not SQLGLOT_FLOOR <= got < SQLGLOT_BELOW:
        raise TranspileError(f"sqlglot {sqlglot.__version__} is installed; trace-audit's rules are checked to "
                             f"translate alike with sqlglot >={SQLGLOT_FLOOR[0]}.{SQLGLOT_FLOOR[1]},"
                             f"<{SQLGLOT_BELOW[0]} (other releases translate differently); "
                             f"pip install 'sqlglot>={SQLGLOT_FLOOR[0]},<{SQLGLOT_BELOW[0]}'")


def parse(sql: str, key: str | None = None) -> exp.Expression:
    """The DuckDB-dialect tree of `sql`, parsed once per `key` (e.g. a rule's sha256)."""
    cache_key = (key or sql, sql if key is None else "")
    tree = _PARSED.get(cache_key)
    if tree is None:
        try:
            tree = sqlglot.parse_one(sql, read=SOURCE_DIALECT)
        except sqlglot.errors.ParseError as exc:
            raise TranspileError(f"sqlglot cannot parse the rule: {exc}") from None
        _PARSED[cache_key] = tree
    return tree


def _timestamp_literal(ts: datetime, dialect: str) -> exp.Expression:
    if ts.tzinfo is not None:
        ts = ts.astimezone(timezone.utc).replace(tzinfo=None)
    text = exp.Literal.string(ts.isoformat(sep=" ", timespec="microseconds"))
    if dialect == "clickhouse":
        # sqlglot would say DateTime (whole seconds); keep microseconds and pin UTC.
        return exp.Anonymous(this="toDateTime64", expressions=[text, exp.Literal.number(6), exp.Literal.string("UTC")])
    return exp.Cast(this=text, to=exp.DataType.build("TIMESTAMP"))


def literal(value: Any, dialect: str) -> exp.Expression:
    """A typed literal for a bound parameter."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, float):
        return exp.Cast(this=exp.Literal.number(repr(value)), to=exp.DataType.build("DOUBLE"))
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, datetime):
        return _timestamp_literal(value, dialect)
    if isinstance(value, date):
        return exp.Cast(this=exp.Literal.string(value.isoformat()), to=exp.DataType.build("DATE"))
    raise TranspileError(f"cannot bind a {type(value).__name__} parameter ({value!r}); use a number, text, "
                         "boolean, time or a list of strings")


def bind(tree: exp.Expression, params: dict[str, Any], dialect: str) -> exp.Expression:
    """A copy of `tree` with each `$name` replaced by the typed literal of params[name]."""
    bound = tree.copy()
    missing: list[str] = []

    def swap(node: exp.Expression) -> exp.Expression:
        if isinstance(node, (exp.Placeholder, exp.Parameter)):
            name = node.name
            if name not in params:
                missing.append(name)
                return node
            return literal(params[name], dialect)
        return node

    bound = _bottom_up(bound, swap)
    if missing:
        raise TranspileError(f"no value bound for ${', $'.join(sorted(set(missing)))}")
    return bound


def bind_text(sql: str, params: dict[str, Any], dialect: str) -> str:
    """Bind `$name` in SQL already written for `dialect` (an override file), whose parser may
    not accept `$name` itself. Placeholders are found outside strings and comments only."""
    out, pos = [], 0
    for m in placeholders(sql):
        name = m.group(1)
        if name not in params:
            raise TranspileError(f"no value bound for ${name}")
        out.append(sql[pos:m.start()])
        out.append(literal(params[name], dialect).sql(dialect=dialect))
        pos = m.end()
    out.append(sql[pos:])
    return "".join(out)


# ---- ClickHouse -----------------------------------------------------------------------------


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _path_keys(path: exp.Expression) -> list[exp.Expression] | None:
    """ClickHouse JSON keys for a constant JSONPath ($.a.b[0] -> 'a', 'b', 1), else None."""
    if not isinstance(path, exp.JSONPath):
        return None
    keys: list[exp.Expression] = []
    for part in path.expressions:
        if isinstance(part, exp.JSONPathRoot):
            continue
        if isinstance(part, exp.JSONPathKey) and isinstance(part.this, str):
            keys.append(exp.Literal.string(part.this))
        elif isinstance(part, exp.JSONPathSubscript) and isinstance(part.this, int):
            keys.append(exp.Literal.number(part.this + 1))  # ClickHouse counts from 1
        else:
            return None
    return keys


def _raw_at(doc: exp.Expression, path: exp.Expression) -> exp.Expression:
    """The raw JSON text at `path` in `doc` ('' when absent)."""
    keys = _path_keys(path)
    if keys is not None:
        return _fn("JSONExtractRaw", doc, *keys)
    # A path held in a column ($."a"."b", as the engine writes argument bounds):
    # JSON functions accept non-constant keys (JSON_VALUE does not), so pick the
    # call by the path's depth (up to 4 keys).
    def names() -> exp.Expression:
        return _fn("extractAll", path.copy(), exp.Literal.string('"([^"]*)"'))

    branches: list[exp.Expression] = []
    for depth in range(1, 5):
        keys = [_fn("arrayElement", names(), exp.Literal.number(i)) for i in range(1, depth + 1)]
        branches += [exp.EQ(this=_fn("length", names()), expression=exp.Literal.number(depth)),
                     _fn("JSONExtractRaw", doc.copy(), *keys)]
    return _fn("multiIf", *branches, exp.Literal.string(""))


def _json_extract_string(doc: exp.Expression, path: exp.Expression) -> exp.Expression:
    """DuckDB's json_extract_string: NULL when absent or JSON null, the text of a string, else the
    minified JSON of the value. ClickHouse's JSONExtractString gives '' for all but strings."""
    raw = _raw_at(doc, path)
    return _fn("multiIf",
               exp.Or(this=exp.EQ(this=raw.copy(), expression=exp.Literal.string("")),
                      expression=exp.EQ(this=raw.copy(), expression=exp.Literal.string("null"))),
               exp.Null(),
               exp.EQ(this=_fn("JSONType", raw.copy()), expression=exp.Literal.string("String")),
               _fn("JSONExtractString", raw.copy()),
               raw.copy())


def _name_qualified_projections(select: exp.Select) -> None:
    # ClickHouse names an unaliased `t.col` output column "t.col", so an outer
    # query's `col` (or `c.col`) does not find it; DuckDB and Spark call it "col".
    for i, proj in enumerate(select.expressions):
        if isinstance(proj, exp.Column) and proj.table and not isinstance(proj.this, exp.Star):
            select.expressions[i] = exp.alias_(proj.copy(), proj.name, quoted=proj.this.quoted)


def _own_sources(select: exp.Select) -> list[exp.Table]:
    found = []
    frm = select.args.get("from_") or select.args.get("from")
    if frm is not None and isinstance(frm.this, exp.Table):
        found.append(frm.this)
    for join in select.args.get("joins") or []:
        if isinstance(join.this, exp.Table):
            found.append(join.this)
    return found


def _resolves_outward(col: exp.Column, outer: exp.Select, name: str) -> bool:
    node = col.parent
    while node is not None and node is not outer:
        if isinstance(node, exp.Select) and any(t.alias_or_name == name for t in _own_sources(node)):
            return False
        node = node.parent
    return True


def _alias_shadowed_tables(select: exp.Select) -> None:
    # `SELECT ... EXISTS (SELECT 1 FROM w g WHERE g.x = w.x) FROM w`: ClickHouse binds the inner
    # `w.x` to the subquery's own `w g`, so the correlation silently disappears. A distinct
    # alias on the outer table makes the reference unambiguous.
    for table in _own_sources(select):
        if table.alias:
            continue
        name = table.name
        nested = [t for sub in select.find_all(exp.Select) if sub is not select
                  for t in _own_sources(sub) if t.name == name]
        if not nested:
            continue
        outer_name = f"{name}__outer"
        cols = [c for c in select.find_all(exp.Column) if c.table == name and _resolves_outward(c, select, name)]
        table.set("alias", exp.TableAlias(this=exp.to_identifier(outer_name)))
        for col in cols:
            col.set("table", exp.to_identifier(outer_name))


def _clickhouse_fixes(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Select):
        _alias_shadowed_tables(node)
        _name_qualified_projections(node)
        return node
    if isinstance(node, exp.JSONExtractScalar):
        return _json_extract_string(node.this, node.expression)
    if isinstance(node, exp.TryCast):
        # CAST(x AS Nullable(T)) still throws on some inputs; accurateCastOrNull never does.
        target = re.sub(r"^Nullable\((.*)\)$", r"\1", node.to.sql("clickhouse"))
        return _fn("accurateCastOrNull", node.this, exp.Literal.string(target))
    if isinstance(node, exp.Anonymous) and str(node.this).lower() == "json_valid":
        return _fn("isValidJSON", *node.expressions)
    if isinstance(node, exp.Cast) and node.to.this in (exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.TIMESTAMP) \
            and not isinstance(node, exp.TryCast):
        return _fn("toDateTime64", node.this, exp.Literal.number(6), exp.Literal.string("UTC"))
    return node


def _spark_fixes(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.JSONExtractScalar) and not isinstance(node.expression, exp.JSONPath):
        # get_json_object reads $['a']['b'], not the $."a"."b" the engine writes for argument bounds.
        path = _fn("regexp_replace", node.expression, exp.Literal.string('\\."([^"]*)"'),
                   exp.Literal.string("['$1']"))
        return _fn("get_json_object", node.this, path)
    if isinstance(node, exp.Anonymous) and str(node.this).lower() == "json_valid":
        # no json_valid in Spark: a valid document is exactly one element when wrapped in [ ].
        # (json_array_length is NULL for invalid JSON, where DuckDB's json_valid is false)
        wrapped = _fn("concat", exp.Literal.string("["), node.expressions[0], exp.Literal.string("]"))
        one = exp.EQ(this=_fn("json_array_length", wrapped), expression=exp.Literal.number(1))
        return exp.If(this=exp.Is(this=node.expressions[0].copy(), expression=exp.Null()), true=exp.Null(),
                      false=_fn("coalesce", exp.Paren(this=one), exp.false()))
    return node


FIXES = {"clickhouse": _clickhouse_fixes, "spark": _spark_fixes, "duckdb": lambda n: n}


def _bottom_up(tree: exp.Expression, fix) -> exp.Expression:
    # sqlglot's transform() does not descend into a replaced node, and the fixes
    # nest (TRY_CAST(json_extract_string(...))), so children are fixed first.
    root = tree
    for node in reversed(list(tree.dfs())):
        new = fix(node)
        if new is not node:
            if node is root:
                root = new
            else:
                node.replace(new)
    return root


def generate(tree: exp.Expression, dialect: str) -> str:
    fixed = _bottom_up(tree.copy(), FIXES.get(dialect, lambda n: n))
    return fixed.sql(dialect=dialect)


_GENERATED: dict[tuple, str] = {}


def transpile(sql: str, params: dict[str, Any], dialect: str, key: str | None = None) -> str:
    """Parse (once per key), bind `params` as typed literals, generate `dialect` SQL.

    The result is remembered per (rule, dialect, parameter values): re-runs with
    the same settings (benchmarks, tests, a dashboard refresh) skip sqlglot."""
    memo = (key or sql, dialect, tuple(sorted((k, type(v).__name__, repr(v)) for k, v in params.items())))
    out = _GENERATED.get(memo)
    if out is None:
        out = generate(bind(parse(sql, key), params, dialect), dialect)
        if len(_GENERATED) > 2048:
            _GENERATED.clear()
        _GENERATED[memo] = out
    return out
