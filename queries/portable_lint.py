"""The portability lint: constructs in rule SQL that do not mean the same on ClickHouse and Spark.

    problems = lint_file(Path("queries/rules/my_rule.sql"))
    for p in problems: print(p)   # my_rule.sql:12: QUALIFY ...; instead: ...

Each construct here was seen to break (or not to exist) on another engine, and
sqlglot translates most of them without a warning (docs/scale-out.md). The
lint reads the sqlglot tree of the rule (DuckDB dialect), so text inside
strings and comments is never flagged, and names the file, the line and the
portable form to write instead. A rule that truly needs one of them keeps it
and gets a per-engine override file (`<id>.clickhouse.sql`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlglot
from sqlglot import exp

from .rulefile import split_header

ROW_NUMBER_FIX = ("wrap the query in a subquery that computes row_number() OVER (PARTITION BY ... ORDER BY ...) "
                  "AS rn and filter WHERE rn = 1 outside it")


@dataclass(frozen=True)
class LintProblem:
    path: Path
    line: int
    construct: str
    fix: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.construct} is not portable (ClickHouse/Spark); instead: {self.fix}"


def _line(node: exp.Expression) -> int:
    for n in node.walk():
        if isinstance(n, exp.Expression) and n.meta.get("line"):
            return int(n.meta["line"])
    if node.meta.get("keyword_line"):
        return int(node.meta["keyword_line"])
    parent = node.parent
    while parent is not None:
        if parent.meta.get("line"):
            return int(parent.meta["line"])
        parent = parent.parent
    return 1


_CHECKS: list[tuple[type | tuple[type, ...], str, str]] = [
    (exp.Qualify, "QUALIFY", ROW_NUMBER_FIX),
    (exp.RegexpReplace, "regexp_replace", "test with regexp_matches(col, 'pattern') and do replacements in "
                                          "Python (or write a per-engine override file)"),
    (exp.LogicalAnd, "bool_and", "sum(CASE WHEN b = TRUE THEN 1 ELSE 0 END) = count(*)"),
    (exp.LogicalOr, "bool_or", "sum(CASE WHEN b = TRUE THEN 1 ELSE 0 END) > 0"),
    ((exp.DateTrunc, exp.TimestampTrunc), "date_trunc", "CAST(ts AS DATE) to bucket by day (UTC); bind other "
                                                         "bounds as parameters computed in Python"),
    ((exp.Substring, exp.Left, exp.Right), "substr/left/right on text",
     "ClickHouse counts bytes, not characters: test with regexp_matches or compare whole values; "
     "length() is fine"),
    (exp.Round, "round()", "return the unrounded value and round in Python (engines round halves differently)"),
    ((exp.Median, exp.PercentileCont, exp.PercentileDisc, exp.Quantile, exp.ApproxQuantile), "median/quantile",
     "no portable spelling: compute it in a per-engine override file, or outside SQL"),
    (exp.Lambda, "a lambda (list function)", "unnest the list and aggregate, or compare JSON text with "
                                             "json_extract_string"),
    (exp.Interval, "INTERVAL arithmetic", "compute the bound in Python and bind it as a $parameter; measure "
                                          "durations with date_diff('second', a, b)"),
    (exp.SimilarTo, "SIMILAR TO", "regexp_matches(col, '^pattern$')"),
    ((exp.DayOfWeek, exp.DayOfWeekIso, exp.Epoch if hasattr(exp, "Epoch") else exp.DayOfWeek),
     "dayofweek/isodow/epoch", "CAST(ts AS DATE) and date_diff('second', a, b)"),
]


def _check_tree(tree: exp.Expression) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    for node in tree.walk():
        for kinds, what, fix in _CHECKS:
            if isinstance(node, kinds):
                found.append((_line(node), what, fix))
        if isinstance(node, exp.Distinct) and node.args.get("on") is not None:
            found.append((_line(node.parent or node), "DISTINCT ON", ROW_NUMBER_FIX))
        if isinstance(node, exp.RegexpLike) and node.args.get("flag") is not None:
            found.append((_line(node), "a regex flags argument",
                          "put the flag in the pattern, e.g. regexp_matches(col, '(?i)pattern')"))
        if isinstance(node, exp.Not) and isinstance(node.this, exp.In) and node.this.args.get("query") is not None:
            found.append((_line(node), "NOT IN (subquery)",
                          "NOT EXISTS (SELECT 1 FROM ... WHERE ...), or LEFT JOIN a pre-aggregated 0/1 flag and "
                          "test coalesce(flag, 0) = 0 (NULLs make NOT IN empty, and engines differ)"))
        if isinstance(node, exp.GroupConcat) or (isinstance(node, exp.Anonymous)
                                                 and str(node.this).lower() == "string_agg"):
            if node.find(exp.Order) is not None:
                found.append((_line(node), "ordered string_agg", "return rows and join them in Python, or a "
                                                                 "per-engine override file"))
    found += _aliases_in_where(tree)
    return found


# ---- a SELECT alias used in its own WHERE -----------------------------------------------------

def _warehouse_columns() -> dict[str, set[str]]:
    from .warehouse.types import columns, tables

    return {t: set(columns(t)) for t in tables()}


def _output_names(query: exp.Expression) -> set[str] | None:
    if isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.Union):
        query = query.left
    if not isinstance(query, exp.Select):
        return None
    names = set()
    for proj in query.expressions:
        if isinstance(proj, exp.Star) or (isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star)):
            return None
        names.add(proj.alias_or_name)
    return names


def _source_columns(select: exp.Select, ctes: dict[str, exp.Expression]) -> set[str] | None:
    """Every column the FROM/JOIN sources of `select` offer, or None if one is unknown."""
    sources = []
    frm = select.args.get("from_") or select.args.get("from")
    if frm is not None:
        sources.append(frm.this)
    sources += [j.this for j in select.args.get("joins") or []]
    cols: set[str] = set()
    for src in sources:
        if isinstance(src, exp.Table):
            if src.name in ctes:
                names = _output_names(ctes[src.name])
            else:
                names = _warehouse_columns().get(src.name)
            if names is None:
                return None
            cols |= names
        elif isinstance(src, exp.Subquery):
            names = _output_names(src)
            if names is None:
                return None
            cols |= names
        else:
            return None
    return cols


def _aliases_in_where(tree: exp.Expression) -> list[tuple[int, str, str]]:
    ctes = {c.alias: c.this for c in tree.find_all(exp.CTE)}
    found = []
    for select in tree.find_all(exp.Select):
        where = select.args.get("where")
        if where is None:
            continue
        aliases = {p.alias for p in select.expressions
                   if isinstance(p, exp.Alias) and not (isinstance(p.this, exp.Column) and p.this.name == p.alias)}
        if not aliases:
            continue
        offered = _source_columns(select, ctes)  # None: a source's columns are unknown (r.*, temp tables)
        for col in where.find_all(exp.Column):
            if col.table or col.name not in aliases:
                continue
            if col.find_ancestor(exp.Select) is not select:
                continue
            if offered is None or col.name in offered:
                what = (f"WHERE {col.name}, which is also a SELECT alias of another expression (ClickHouse "
                        "reads the alias, DuckDB and Spark the column)")
                fix = f"qualify it (e.g. t.{col.name}) or give the SELECT expression another name"
            else:
                what = f"the SELECT alias {col.name!r} used in WHERE"
                fix = "repeat the expression in WHERE, or compute it in a CTE / subquery and filter outside"
            found.append((_line(col), what, fix))
    return found


def _mark_keyword_lines(tree: exp.Expression, sql: str) -> None:
    # sqlglot keeps no position for some nodes (INTERVAL '15' MINUTE): take the line of the
    # n-th INTERVAL keyword in the code (comments and strings blanked) for the n-th such node.
    import re

    from .sql_params import strip_sql_noise

    clean = strip_sql_noise(sql)
    lines = [clean.count("\n", 0, m.start()) + 1 for m in re.finditer(r"(?i)\bINTERVAL\b", clean)]
    for node, line in zip(tree.find_all(exp.Interval, bfs=False), lines):
        node.meta["keyword_line"] = line


# ---- entry points ----------------------------------------------------------------------------


def lint_sql(sql: str, path: Path, first_line: int = 1) -> list[LintProblem]:
    """Problems in `sql`, whose first line is line `first_line` of `path`."""
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
        _mark_keyword_lines(tree, sql)
    except sqlglot.errors.ParseError as exc:
        err = exc.errors[0] if exc.errors else {}
        return [LintProblem(path, first_line - 1 + int(err.get("line") or 1), "SQL that sqlglot cannot parse",
                            f"{err.get('description') or exc}; only SQL sqlglot can read can be transpiled")]
    problems = {LintProblem(path, first_line - 1 + line, what, fix) for line, what, fix in _check_tree(tree)}
    return sorted(problems, key=lambda p: (p.line, p.construct))


def lint_file(path: str | Path) -> list[LintProblem]:
    path = Path(path)
    text = path.read_text("utf-8")
    _, body_line = split_header(text)
    body = "\n".join(text.splitlines()[body_line - 1:])
    return lint_sql(body, path, body_line)


def lint_rules(rules) -> list[LintProblem]:
    """Lint every SQL rule and turn-model file of a loaded catalogue (rulefile.load_rules)."""
    out: list[LintProblem] = []
    for rule in rules:
        if rule.kind in ("sql", "model") and rule.path is not None and rule.path.suffix == ".sql":
            out += lint_file(rule.path)
    return out
