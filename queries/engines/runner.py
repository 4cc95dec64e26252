"""Run the rule catalogue on any engine; findings always land in the DuckDB warehouse.

    from . import run_rules_on
    result = run_rules_on("chdb", con, now=..., rule_ids=None, config=None)

For an engine other than DuckDB:
1. plan the run exactly as DuckDB would (same rules, config, parameters);
2. let the engine see the warehouse tables (chDB copies them in; a ClickHouse
   server already has them);
3. build the turn model there as temporary tables, then run each rule: its
   `<id>.<dialect>.sql` override if there is one, else the rule transpiled;
4. normalise each Arrow result and hand it to DuckDB's own staging, which
   formats messages and evidence and stores the run: so message and evidence
   text cannot differ by engine, only the rows the rule returned can.

A rule that fails on the engine is recorded as failed with the engine's
answer, and the other rules still run, as on DuckDB.
"""

from __future__ import annotations

import dataclasses
import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

from ..warehouse import db
from .. import engine as rule_engine
from .base import ENGINE_NAMES, Engine, EngineQueryError, EngineUnavailable, override_path
from .normalise import Reference, arrow_columns, cast_select
from ..rulefile import Rule


class _Transpile:
    """queries/engines/transpile.py, imported when first used: sqlglot takes 0.1 s to load, and a
    run on DuckDB transpiles nothing."""

    def __getattr__(self, name: str):
        from . import transpile

        return getattr(transpile, name)


tp = _Transpile()


def open_engine(name: str, clickhouse_url: str | None = None) -> Engine:
    """A session on engine `name` (not duckdb); raises EngineUnavailable with what to install."""
    if name == "chdb":
        from .chdb_engine import ChdbEngine

        return ChdbEngine()
    if name == "clickhouse":
        from .clickhouse import ClickHouseEngine

        return ClickHouseEngine(clickhouse_url)
    if name == "spark":
        from .spark import SparkEngine

        return SparkEngine()
    raise EngineUnavailable(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")


def _bound_params(rule: Rule, plan: rule_engine.Plan) -> dict[str, Any]:
    return rule_engine._bind(rule, plan)  # noqa: SLF001 - the one definition of parameter values


def engine_sql(rule: Rule, plan: rule_engine.Plan, dialect: str, override_suffix: str | None = None) -> str:
    """The SQL an engine runs for `rule`: its override file if present, else the rule transpiled."""
    params = _bound_params(rule, plan)
    if override_suffix and rule.path is not None:
        over = override_path(rule.path, override_suffix)
        if over.is_file():
            return tp.bind_text(over.read_text("utf-8").strip().rstrip(";"), params, dialect)
    return tp.transpile(rule.sql, params, dialect, key=rule.sha256)


def _reads(rule: Rule, tables: set[str]) -> set[str]:
    """The turn-model tables `rule` reads: its declared `uses` where the rule engine has them,
    else every model table its SQL names."""
    declared = getattr(rule, "dependencies", None)
    if declared is not None and getattr(rule.header, "uses", None) is not None:
        return set(declared) & tables
    return {t for t in tables if t != rule.table and re.search(rf"\b{t}\b", rule.sql)}


def _needed_models(plan: rule_engine.Plan) -> list[Rule]:
    """The turn-model files the chosen rules read, directly or through another model."""
    by_table = {m.table: m for m in plan.models}
    tables = set(by_table)
    want: set[str] = set()
    todo = [t for r in plan.rules if r.kind == "sql" for t in _reads(r, tables)]
    while todo:
        t = todo.pop()
        if t not in want:
            want.add(t)
            todo += list(_reads(by_table[t], tables))
    return [m for m in plan.models if m.table in want]


def _materialise_models(eng: Engine, plan: rule_engine.Plan) -> dict[str, str]:
    """The turn model as engine temp tables, in dependency order; {table: error} for failures."""
    failed: dict[str, str] = {}
    pending = _needed_models(plan)
    names = {m.table for m in plan.models}
    done: set[str] = set()
    while pending:
        progressed = False
        for m in list(pending):
            needs = _reads(m, names)
            if not needs <= done | set(failed):
                continue
            pending.remove(m)
            progressed = True
            broken = needs & set(failed)
            if broken:
                failed[m.table] = f"depends on {', '.join(sorted(broken))}, which failed"
                continue
            try:
                eng.create_temp_table(m.table, engine_sql(m, plan, eng.dialect))
                done.add(m.table)
            except (EngineQueryError, tp.TranspileError) as exc:
                failed[m.table] = f"{m.path.name}: {exc}"
        if not progressed:
            for m in pending:
                failed[m.table] = f"{m.path.name}: circular dependency between turn-model files"
            break
    return failed


def _raising(message: str) -> str:
    return "SELECT error(" + tp.exp.Literal.string(message).sql("duckdb") + ")"


def run_plan_on(eng: Engine, con: duckdb.DuckDBPyConnection, plan: rule_engine.Plan,
                since: datetime | None = None, until: datetime | None = None,
                started: datetime | None = None, t0: float | None = None,
                store: bool = True) -> rule_engine.RunResult:
    """Evaluate `plan` on `eng` (already attached) and stage/store the findings on `con`."""
    tp.check_sqlglot_version()
    t0 = t0 or time.perf_counter()
    started = started or datetime.now(timezone.utc)
    ref = Reference(plan)
    eng.create_values_table("argument_bounds", ref.bounds_columns, ref.bounds_rows)
    from ..reading.tables import CLAIM_COLUMNS, READING_COLUMNS, TOOL_COLUMNS, TOOL_OBJECT_COLUMNS
    from ..reading.value_checks import CHECK_COLUMNS

    # The reading, the tool typing and value_checks (Python over the turn model) are computed once,
    # on DuckDB's own copy of the turn model, and handed to the engine as data.
    with db.deferred_checkpoint(con):
        local_failures = rule_engine._prepare(con, plan)

    def local(name: str):
        return con.sql(f"SELECT * FROM {name}").to_arrow_table()

    for name, columns in (("reply_readings", READING_COLUMNS), ("claim_items", CLAIM_COLUMNS),
                          ("tool_classes", TOOL_COLUMNS), ("tool_objects", TOOL_OBJECT_COLUMNS)):
        eng.create_values_table(name, columns, local(name))
    model_failures = _materialise_models(eng, plan)
    if "value_checks" in local_failures:
        model_failures["value_checks"] = local_failures["value_checks"]
    else:
        eng.create_values_table("value_checks", CHECK_COLUMNS, local("value_checks"))
    staged: list[Rule] = []
    registered: list[str] = []
    engine_seconds: dict[str, float] = {}
    try:
        for i, rule in enumerate(plan.rules):
            t1 = time.perf_counter()
            broken = [f"{t}: {e}" for t, e in model_failures.items() if t in _reads(rule, set(model_failures))]
            if rule.kind != "sql":
                stage = _raising(f"{rule.kind} rules run on DuckDB only; use --engine duckdb for {rule.id}")
            elif broken:
                stage = _raising(f"{eng.name}: turn model failed: " + "; ".join(broken))
            elif rule.id in ref.errors:
                stage = _raising(ref.errors[rule.id])
            else:
                try:
                    result = arrow_columns(eng.query_arrow(engine_sql(rule, plan, eng.dialect, eng.override_suffix)))
                    name = f"_ta_ext_{i}"
                    con.register(name, result)
                    registered.append(name)
                    stage = cast_select(name, ref.columns[rule.id], result.column_names)
                except (EngineQueryError, tp.TranspileError, ValueError) as exc:
                    stage = _raising(str(exc))
            engine_seconds[rule.id] = time.perf_counter() - t1
            # DuckDB's staging formats message and evidence from these rows, exactly as for its own runs.
            staged.append(dataclasses.replace(rule, sql=stage, used_params=[], kind="sql"))
        local = dataclasses.replace(plan, models=[], rules=staged)
        result = rule_engine.execute_plan(con, local, since=since, until=until, started=started, t0=t0,
                                          store=store, prepared={})  # judged above, per rule
    finally:
        for name in registered:
            con.unregister(name)
    for o in result.rules:
        o.seconds = round(o.seconds + engine_seconds.get(o.id, 0.0), 4)
    if store:
        con.execute("UPDATE rule_runs SET engine = ? WHERE run_id = ?", [eng.name, result.run_id])
    return result


def run_rules_on(engine_name: str, con: duckdb.DuckDBPyConnection, now: datetime | None = None,
                 since: datetime | None = None, until: datetime | None = None, rule_ids: list[str] | None = None,
                 config=None, rules_dir: str | Path | None = None, clickhouse_url: str | None = None,
                 store: bool = True, engine: Engine | None = None) -> rule_engine.RunResult:
    """`trace-audit rules run --engine NAME`: the same RunResult as engine.run_rules.

    `engine` reuses an open, attached session (benchmarks, tests); otherwise one
    is opened, attached to the warehouse on `con`, and closed afterwards.
    """
    t0 = time.perf_counter()
    started = datetime.now(timezone.utc)
    plan = rule_engine.plan_run(config, rule_ids, rules_dir, now)
    if engine_name == "duckdb" and engine is None:
        from .duckdb_engine import run_plan

        return run_plan(con, plan, since=since, until=until, started=started, t0=t0, store=store)
    if engine is not None:
        return run_plan_on(engine, con, plan, since, until, started, t0, store)
    with open_engine(engine_name, clickhouse_url) as eng:
        eng.attach(con)
        return run_plan_on(eng, con, plan, since, until, started, t0, store)


__all__ = ["run_rules_on", "run_plan_on", "open_engine", "engine_sql", "ENGINE_NAMES", "db"]
