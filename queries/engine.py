"""The rule engine: run the catalogue over the warehouse, store the run and its findings.

    from .engine import run_rules
    result = run_rules(con, now=datetime(...), rule_ids=None, config=None)

Order of work:
1. load the config, the claim lexicon and the rule files (a bad file stops the
   run before anything is evaluated: it is a load error, not a rule failure);
2. materialise the turn model (`queries/rules/_*.sql`) as tables of the run,
   and evaluate every enabled rule into a staging table (queries/rule_stage.py);
   independent jobs run side by side on cursors of the connection, each once
   the tables it reads exist (queries/run_schedule.py); a rule that raises is
   recorded as failed with its error and the others still run;
4. in ONE transaction write the `rule_runs` row and the findings, and mark
   the warehouse changed.

Findings are a pure function of (data, rule files, config, --now): the run id
and wall-clock timestamps live only in `rule_runs`.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import duckdb

from .warehouse import db
from .config import Config, ConfigError, load_config
from .lexicon import compile_lexicon
from .rulefile import GLOBAL_PARAMS, Rule, RuleLoadError, load_rules
from .rule_stage import stage_python, stage_rule
from .run_schedule import Job, Scratch, default_workers, open_scratch, run_jobs
from .run_store import store_run



class EngineError(Exception):
    """A problem that stops a run before any rule is evaluated (bad rule id, config, lexicon)."""


@dataclass
class RuleOutcome:
    id: str
    severity: str
    sha256: str
    findings: int = 0
    error: str | None = None
    seconds: float = 0.0


@dataclass
class RunResult:
    run_id: str
    now: datetime
    finding_count: int
    failed: list[tuple[str, str]]
    rules: list[RuleOutcome] = field(default_factory=list)
    seconds: float = 0.0
    config_hash: str = ""

    def counts(self) -> dict[str, int]:
        return {r.id: r.findings for r in self.rules}


@dataclass
class Plan:
    """What a run will do: the rules, their effective settings and bound parameters."""

    config: Config
    models: list[Rule]
    rules: list[Rule]
    severity: dict[str, str]
    params: dict[str, dict[str, Any]]
    globals: dict[str, Any]
    lexicon: Any = None  # CompiledLexicon: the clause reader and the step-outcome patterns
    value_matches: bool = False  # value_checks keeps the values that agreed too (a turn's report)


def list_param(values: list[str]) -> str:
    """A list parameter is bound as an anchored regex matching any item exactly (portable SQL)."""
    if not values:
        return "[^\\s\\S]"
    return "^(" + "|".join(re.escape(v) for v in values) + ")$"


def _coerce_param(rule: Rule, name: str, default: Any, value: Any, where: str) -> Any:
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif isinstance(default, str):
        ok = isinstance(value, str)
    elif isinstance(default, list):
        ok = isinstance(value, list) and all(isinstance(x, str) for x in value)
    else:
        ok = True
    if not ok:
        raise ConfigError(f"{where}: rules.{rule.id}.params.{name}: expected {type(default).__name__} "
                          f"like the default {default!r}, got {value!r}")
    return value


def plan_run(config: Config | str | Path | None = None, rule_ids: list[str] | None = None,
             rules_dir: str | Path | None = None, now: datetime | None = None) -> Plan:
    """Load and check everything a run needs; raises EngineError / ConfigError / RuleLoadError."""
    cfg = config if isinstance(config, Config) else load_config(config)
    dirs = [d for d in (cfg.resolved_rules_dir(), str(rules_dir) if rules_dir else None) if d]
    all_rules = load_rules(dirs)
    models = model_order([r for r in all_rules if r.is_model])
    rules = [r for r in all_rules if not r.is_model]
    by_id = {r.id: r for r in rules}
    for rid in cfg.rules:
        if rid not in by_id:
            raise ConfigError(f"config: [rules.{rid}]: no such rule; known rules: {', '.join(sorted(by_id))}")
    if rule_ids:
        unknown = [r for r in rule_ids if r not in by_id]
        if unknown:
            raise EngineError(f"unknown rule {', '.join(unknown)}; `trace-audit rules list` shows the rules")
        chosen = [by_id[r] for r in rule_ids]  # asked for by name: run even if disabled by default
    else:
        chosen = []
        for r in rules:
            settings = cfg.rules.get(r.id)
            enabled = settings.enabled if settings and settings.enabled is not None else r.header.enabled
            if enabled:
                chosen.append(r)
    severity, params = {}, {}
    for r in rules:
        settings = cfg.rules.get(r.id)
        severity[r.id] = (settings.severity if settings and settings.severity else r.header.severity)
        p = dict(r.header.params)
        overrides = dict(settings.params) if settings else {}
        if r.id == "forbidden_tool" and cfg.forbidden_tools is not None:
            overrides.setdefault("tools", cfg.forbidden_tools)
        for name, value in overrides.items():
            if name not in p:
                raise ConfigError(f"config: rules.{r.id}.params.{name}: unknown parameter; "
                                  f"{r.id} takes {', '.join(sorted(p)) or 'no parameters'}")
            p[name] = _coerce_param(r, name, p[name], value, "config")
        params[r.id] = {k: (list_param(v) if isinstance(v, list) else v) for k, v in p.items()}
    try:
        lexicon = compile_lexicon(cfg)
    except Exception as exc:  # noqa: BLE001 - LexiconError carries the message
        raise EngineError(str(exc)) from None
    when = now or datetime.now(timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    globals_ = {
        "now": when.astimezone(timezone.utc),
        "write_tool_re": cfg.write_tool_re(),
        "unchecked_sources_re": list_param(cfg.write_tools.unchecked_sources),
        "write_tool_exclude_re": list_param(cfg.write_tools.exclude),
        "reply_window_seconds": cfg.linking.reply_window_seconds,
        **lexicon.params(),
    }
    return Plan(cfg, models, chosen, severity, params, globals_, lexicon)


def _bind(rule: Rule, plan: Plan) -> dict[str, Any]:
    own = plan.params.get(rule.id, {})
    out = {}
    for name in rule.used_params:
        out[name] = own[name] if name in own else plan.globals[name]
    return out


def model_order(models: list[Rule]) -> list[Rule]:
    """The turn-model files in an order where each comes after the files it `uses`
    (file-name order otherwise); a cycle is a RuleLoadError naming the files."""
    by_table = {m.table: m for m in models}
    done: set[str] = set()
    ordered: list[Rule] = []
    pending = list(models)
    while pending:
        ready = [m for m in pending if all(d in done or d not in by_table for d in m.dependencies)]
        if not ready:
            raise RuleLoadError("circular `uses` between turn-model files: "
                                + ", ".join(m.path.name for m in pending))
        for m in ready:
            ordered.append(m)
            done.add(m.table)
            pending.remove(m)
    return ordered


def _prepare(con: duckdb.DuckDBPyConnection, plan: Plan) -> dict[str, str]:
    """The config tables and the turn model as TEMP tables on `con`, one after another; returns
    {model table: error} for failures. (A narrowed copy for one turn, or an engine's inputs.)"""
    failed: dict[str, str] = {}
    scratch = Scratch(None, 1)
    run_jobs(con, _model_jobs(plan, failed, scratch), scratch)
    return failed


def _model_jobs(plan: Plan, failed: dict[str, str], scratch: Scratch) -> list[Job]:
    """The jobs that build the turn model: the inputs (config tables, the reading, the tool typing),
    each model file, and value_checks. Each records its failure in `failed`."""

    def inputs(con: duckdb.DuckDBPyConnection) -> None:
        from .reading.tables import INPUTS, create_inputs

        con.execute(scratch.create("argument_bounds", "(tool_re VARCHAR, arg VARCHAR, path VARCHAR, "
                                   "min_value DOUBLE, max_value DOUBLE, required BOOLEAN)"))
        for b in plan.config.argument_bounds:
            path = "$." + ".".join('"' + part.replace('"', '\\"') + '"' for part in b.arg.split("."))
            con.execute(f"INSERT INTO {scratch.qualified('argument_bounds')} VALUES (?, ?, ?, ?, ?, ?)",
                        [b.tool, b.arg, path, b.min, b.max, b.required])
        create_inputs(con, plan)  # TEMP tables on con: moved where every cursor sees them
        if scratch.catalog is not None:
            for name in INPUTS:
                con.execute(scratch.create(name, f"AS SELECT * FROM temp.main.{name}"))
                con.execute(f"DROP TABLE temp.main.{name}")

    def model(m: Rule) -> Callable[[duckdb.DuckDBPyConnection], None]:
        def build(cur: duckdb.DuckDBPyConnection) -> None:
            broken = [d for d in m.dependencies if d in failed]
            if broken:
                failed[m.table] = f"depends on {', '.join(sorted(broken))}, which failed"
                return
            try:
                cur.execute(scratch.create(m.table, f"AS {m.sql}"), _bind(m, plan))
            except duckdb.Error as exc:
                failed[m.table] = f"{m.path.name}: {exc}"
        return build

    jobs = [Job("inputs", inputs, on_con=True)]
    jobs += [Job(m.table, model(m), set(m.dependencies) | {"inputs"}) for m in model_order(plan.models)]
    return jobs + _value_jobs(plan, failed, scratch)


def _value_jobs(plan: Plan, failed: dict[str, str], scratch: Scratch) -> list[Job]:
    """value_checks (Python over the turn model, once per run) in three jobs: the asked half needs
    write_steps only, so it runs beside the claim models; the told half follows claimed_actions.
    All three keep TEMP tables of value_run on con. A failure of any is value_checks' failure."""
    from .reading.value_run import ASKED_READS, TOLD_READS, ValueRun

    run = ValueRun(plan)
    loaded = {m.table for m in plan.models}

    def step(reads: tuple[str, ...], work: Callable[[duckdb.DuckDBPyConnection], Any]):
        def go(con: duckdb.DuckDBPyConnection) -> None:
            if "value_checks" in failed:
                return
            broken = [t for t in reads if t in failed or t not in loaded]
            try:
                if broken:
                    raise ValueError(f"depends on {', '.join(sorted(broken))}, which failed or is not loaded")
                work(con)
            except (duckdb.Error, ValueError, KeyError) as exc:
                failed["value_checks"] = f"value_checks: {exc}"
        return go

    def finish(con: duckdb.DuckDBPyConnection) -> None:
        run.finish(con)
        if scratch.catalog is not None:  # where the rules that read it can run on any cursor
            con.execute(scratch.create("value_checks", "AS SELECT * FROM temp.main.value_checks"))
            con.execute("DROP TABLE temp.main.value_checks")

    return [Job("value_asked", step(ASKED_READS, run.asked), set(ASKED_READS) | {"inputs"}, on_con=True),
            Job("value_told", step(TOLD_READS, run.told), set(TOLD_READS) | {"inputs"}, on_con=True),
            Job("value_checks", step((), finish), {"value_asked", "value_told"}, on_con=True)]


def run_rules(con: duckdb.DuckDBPyConnection, now: datetime | None = None, since: datetime | None = None,
              until: datetime | None = None, rule_ids: list[str] | None = None,
              config: Config | str | Path | None = None, rules_dir: str | Path | None = None) -> RunResult:
    """Run the enabled rules (or `rule_ids`) over the warehouse on `con` (writable) and store the run."""
    t0 = time.perf_counter()
    started = datetime.now(timezone.utc)
    plan = plan_run(config, rule_ids, rules_dir, now)
    return execute_plan(con, plan, since=since, until=until, started=started, t0=t0)


def _utc(ts: datetime | None) -> datetime | None:
    if ts is None:
        return None
    return ts.replace(tzinfo=timezone.utc) if ts.tzinfo is None else ts.astimezone(timezone.utc)


def execute_plan(con: duckdb.DuckDBPyConnection, plan: Plan, since: datetime | None = None,
                 until: datetime | None = None, started: datetime | None = None, t0: float | None = None,
                 store: bool = True, prepared: dict[str, str] | None = None) -> RunResult:
    """Evaluate `plan` on `con` and store the findings. `prepared`: the turn model is already on
    `con` (an engine built its own copy), with these failures."""
    with db.deferred_checkpoint(con):
        return _execute_plan(con, plan, since, until, started, t0, store, prepared)


def _last_seconds(con: duckdb.DuckDBPyConnection) -> dict[str, float]:
    """Each rule's time in the warehouse's latest run ({} if none): the run starts the slow ones first."""
    try:
        rows = con.execute("SELECT rules FROM rule_runs ORDER BY started_at DESC LIMIT 1").fetchall()
        return {r["id"]: float(r.get("seconds") or 0.0) for r in json.loads(rows[0][0])} if rows else {}
    except (duckdb.Error, ValueError, TypeError, KeyError):
        return {}  # no rule_runs table (a bare connection) or a row of an older layout


def _rule_job(rule: Rule, out: RuleOutcome, plan: Plan, failed: dict[str, str], scratch: Scratch,
              index: int) -> Callable[[duckdb.DuckDBPyConnection], None]:
    def run(con: duckdb.DuckDBPyConnection) -> None:
        t1 = time.perf_counter()
        broken = [f"{t}: {e}" for t, e in failed.items()
                  if t in rule.dependencies or (t == "value_checks" and "value_checks" in rule.sql)]
        if broken:
            out.error = "turn model failed: " + "; ".join(broken)
        else:
            try:
                severity = plan.severity[rule.id]
                if rule.kind == "python":
                    out.findings = stage_python(con, rule, severity, scratch)
                else:
                    out.findings = stage_rule(con, rule, severity, _bind(rule, plan), scratch, f"_ta_out_{index}")
            except Exception as exc:  # noqa: BLE001 - one rule's failure must not stop the others
                out.error = f"{rule.path.name}: {type(exc).__name__}: {exc}".replace("\n", " ")
                con.execute(f"DELETE FROM {scratch.qualified('_ta_stage')} WHERE rule_id = ?", [rule.id])
        out.seconds = round(time.perf_counter() - t1, 4)
    return run


def _execute_plan(con, plan, since, until, started, t0, store, prepared) -> RunResult:
    t0 = t0 or time.perf_counter()
    started = started or datetime.now(timezone.utc)
    since, until = _utc(since), _utc(until)
    # An engine's run (prepared) stages rows from views registered on con: one worker, on con.
    scratch = open_scratch(con, default_workers() if prepared is None else 1,
                           [m.table for m in plan.models] + ["value_checks"])
    con.execute(scratch.create("_ta_stage", "(rule_id VARCHAR, severity VARCHAR, task_id VARCHAR, "
                               "conversation_id VARCHAR, user_id VARCHAR, seq INTEGER, message VARCHAR, "
                               "evidence JSON, event_time TIMESTAMPTZ)"))
    failed: dict[str, str] = {} if prepared is None else dict(prepared)
    jobs = _model_jobs(plan, failed, scratch) if prepared is None else []
    models = [j.name for j in jobs]
    outcomes = [RuleOutcome(rule.id, plan.severity[rule.id], rule.sha256) for rule in plan.rules]
    last = _last_seconds(con) if scratch.workers > 1 else {}
    for i, (rule, out) in enumerate(zip(plan.rules, outcomes)):
        reads_values = "value_checks" in rule.sql
        deps = set(models) if rule.kind == "python" else \
            set(rule.dependencies) | {"inputs"} | ({"value_checks"} if reads_values else set())
        jobs.append(Job(f"rule {rule.id}", _rule_job(rule, out, plan, failed, scratch, i), deps,
                        on_con=rule.kind == "python", cost=last.get(rule.id, 0.0)))
    run_jobs(con, jobs, scratch)
    stage = scratch.qualified("_ta_stage")
    wparams = {"since": since, "until": until}
    if since or until:
        con.execute(f"DELETE FROM {stage} WHERE NOT (event_time IS NOT NULL AND "
                    "(CAST($since AS TIMESTAMPTZ) IS NULL OR event_time >= $since) AND "
                    "(CAST($until AS TIMESTAMPTZ) IS NULL OR event_time < $until))", wparams)
        per_rule = dict(con.execute(f"SELECT rule_id, count(*) FROM {stage} GROUP BY rule_id").fetchall())
        for o in outcomes:
            o.findings = per_rule.get(o.id, 0)
    total = con.execute(f"SELECT count(*) FROM {stage}").fetchall()[0][0]
    run_id = started.strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]
    rule_failures = [(o.id, o.error) for o in outcomes if o.error]
    result = RunResult(run_id, plan.globals["now"], total, rule_failures, outcomes, config_hash=plan.config.digest())
    if store:
        store_run(con, plan, result, since, until, started, stage)
    result.seconds = round(time.perf_counter() - t0, 3)
    return result


__all__ = ["run_rules", "RunResult", "RuleOutcome", "EngineError", "ConfigError", "RuleLoadError", "plan_run",
           "execute_plan", "GLOBAL_PARAMS", "list_param"]
