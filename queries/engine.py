"""The rule engine: run the catalogue over the warehouse, store the run and its findings.

    from .engine import run_rules
    result = run_rules(con, now=datetime(...), rule_ids=None, config=None)

Order of work:
1. load the config, the claim lexicon and the rule files (a bad file stops the
   run before anything is evaluated: it is a load error, not a rule failure);
2. materialise the turn model (`queries/rules/_*.sql`) as temp tables;
3. evaluate every enabled rule into a temp staging table; a rule that raises
   is recorded as failed with its error and the others still run;
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
from typing import Any

import duckdb

from .warehouse import db
from .config import Config, ConfigError, load_config
from .lexicon import compile_lexicon
from .rulefile import GLOBAL_PARAMS, Rule, RuleLoadError, load_rules
from .run_store import store_run

STANDARD_COLUMNS = ("task_id", "conversation_id", "user_id", "seq", "event_time")
_TEMPLATE_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


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


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


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
    """Create the config tables and the turn-model temp tables; returns {model table: error} for failures."""
    con.execute("CREATE OR REPLACE TEMP TABLE argument_bounds (tool_re VARCHAR, arg VARCHAR, path VARCHAR, "
                "min_value DOUBLE, max_value DOUBLE, required BOOLEAN)")
    for b in plan.config.argument_bounds:
        path = "$." + ".".join('"' + part.replace('"', '\\"') + '"' for part in b.arg.split("."))
        con.execute("INSERT INTO argument_bounds VALUES (?, ?, ?, ?, ?, ?)",
                    [b.tool, b.arg, path, b.min, b.max, b.required])
    failed: dict[str, str] = {}
    from .reading.tables import create_inputs

    create_inputs(con, plan)
    for m in model_order(plan.models):
        broken = [d for d in m.dependencies if d in failed]
        if broken:
            failed[m.table] = f"depends on {', '.join(sorted(broken))}, which failed"
            continue
        try:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {m.table} AS {m.sql}", _bind(m, plan))
        except duckdb.Error as exc:
            failed[m.table] = f"{m.path.name}: {exc}"
    _create_value_checks(con, plan, failed)
    return failed


def _create_value_checks(con: duckdb.DuckDBPyConnection, plan: Plan, failed: dict[str, str]) -> None:
    """value_checks: Python over the turn model (claimed_actions, write_steps), once per run."""
    from .reading.value_checks import DEPENDS
    from .reading.value_run import create_checks

    broken = [t for t in DEPENDS if t in failed or not any(m.table == t for m in plan.models)]
    try:
        if broken:
            raise ValueError(f"depends on {', '.join(sorted(broken))}, which failed or is not loaded")
        create_checks(con, plan)
    except (duckdb.Error, ValueError, KeyError) as exc:
        failed["value_checks"] = f"value_checks: {exc}"


def _message_sql(template: str, columns: set[str]) -> str:
    parts, pos = [], 0
    for m in _TEMPLATE_FIELD.finditer(template):
        if m.start() > pos:
            parts.append(_sql_str(template[pos:m.start()]))
        name = m.group(1)
        if name not in columns:
            raise ValueError(f"message template names {{{name}}}, which the query does not return "
                             f"(it returns {', '.join(sorted(columns))})")
        parts.append(f"coalesce(CAST(o.{_ident(name)} AS VARCHAR), '')")
        pos = m.end()
    if pos < len(template):
        parts.append(_sql_str(template[pos:]))
    return "concat(" + ", ".join(parts) + ")" if parts else "''"


def _stage_rule(con: duckdb.DuckDBPyConnection, rule: Rule, plan: Plan) -> int:
    """Evaluate one SQL rule into _ta_stage; returns its finding count. Raises on any error."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE _ta_out AS {rule.sql}", _bind(rule, plan))
    cols = [d[0] for d in con.execute("SELECT * FROM _ta_out LIMIT 0").description]
    colset = set(cols)
    if "task_id" not in colset and "conversation_id" not in colset:
        raise ValueError("the query must return task_id or conversation_id")
    extras = [c for c in cols if c not in STANDARD_COLUMNS
              and not (c == "tools" and rule.header.evidence_steps != "none")]
    fields = [f"{_ident(c)} := o.{_ident(c)}" for c in extras]
    if rule.header.evidence_steps != "none":
        # One struct per finding (its columns, then the task's steps): no JSON re-parsing to merge.
        # Steps in seq order by sorting each list (structs sort by their first field): an ordered
        # aggregate costs several times more.
        fields.append("tools := coalesce(st.tools, [])")
        write_filter = ("AND s.tool IN (SELECT tool FROM tool_classes WHERE is_write)"
                        if rule.header.evidence_steps == "write" else "")
        steps_join = f"""LEFT JOIN (
            SELECT s.task_id, list_sort(list(struct_pack(seq := s.seq, tool := s.tool, status := s.status,
                   verified := s.verified, attempts := s.attempts, error := s.error, detail := s.detail))) AS tools
            FROM steps s
            WHERE s.task_id IN (SELECT task_id FROM _ta_out) {write_filter}
            GROUP BY s.task_id) st ON st.task_id = o.task_id"""
    else:
        steps_join = ""
    evidence = f"to_json(struct_pack({', '.join(fields)}))" if fields else "CAST('{}' AS JSON)"

    def col(name: str, cast: str) -> str:
        return f"TRY_CAST(o.{_ident(name)} AS {cast})" if name in colset else f"CAST(NULL AS {cast})"

    task_join = "LEFT JOIN tasks t ON t.task_id = o.task_id" if "task_id" in colset else \
        "LEFT JOIN tasks t ON FALSE"
    sql = f"""
        INSERT INTO _ta_stage
        SELECT $rule_id, $severity, {col('task_id', 'VARCHAR')},
               coalesce({col('conversation_id', 'VARCHAR')}, t.conversation_id),
               coalesce({col('user_id', 'VARCHAR')}, t.user_id),
               {col('seq', 'INTEGER')},
               {_message_sql(rule.header.message, colset)},
               {evidence},
               coalesce({col('event_time', 'TIMESTAMPTZ')}, t.started_at)
        FROM _ta_out o {task_join} {steps_join}"""
    params = {"rule_id": rule.id, "severity": plan.severity[rule.id]}
    return con.execute(sql, params).fetchall()[0][0]  # INSERT returns the number of rows it wrote


def _stage_python(con: duckdb.DuckDBPyConnection, rule: Rule, plan: Plan) -> int:
    from .python_turns import iter_turns

    rows = []
    for turn in iter_turns(con):
        for f in rule.python(turn) or []:
            f = dict(f)
            seq = f.pop("seq", None)
            message = str(f.pop("message", rule.header.message))
            task = turn["task"]
            rows.append([rule.id, plan.severity[rule.id], task["task_id"], task.get("conversation_id"),
                         task.get("user_id"), seq, message, json.dumps(f, ensure_ascii=False, default=str),
                         task.get("started_at")])
    if rows:
        con.executemany("INSERT INTO _ta_stage VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS JSON), ?)", rows)
    return len(rows)


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


def _execute_plan(con, plan, since, until, started, t0, store, prepared) -> RunResult:
    t0 = t0 or time.perf_counter()
    started = started or datetime.now(timezone.utc)
    since, until = _utc(since), _utc(until)
    con.execute("CREATE OR REPLACE TEMP TABLE _ta_stage (rule_id VARCHAR, severity VARCHAR, task_id VARCHAR, "
                "conversation_id VARCHAR, user_id VARCHAR, seq INTEGER, message VARCHAR, evidence JSON, "
                "event_time TIMESTAMPTZ)")
    model_failures = _prepare(con, plan) if prepared is None else prepared
    outcomes: list[RuleOutcome] = []
    for rule in plan.rules:
        out = RuleOutcome(rule.id, plan.severity[rule.id], rule.sha256)
        t1 = time.perf_counter()
        broken = [f"{t}: {e}" for t, e in model_failures.items()
                  if t in rule.dependencies or (t == "value_checks" and "value_checks" in rule.sql)]
        if broken:
            out.error = "turn model failed: " + "; ".join(broken)
        else:
            try:
                if rule.kind == "python":
                    out.findings = _stage_python(con, rule, plan)
                else:
                    out.findings = _stage_rule(con, rule, plan)
            except Exception as exc:  # noqa: BLE001 - one rule's failure must not stop the others
                out.error = f"{rule.path.name}: {type(exc).__name__}: {exc}".replace("\n", " ")
                con.execute("DELETE FROM _ta_stage WHERE rule_id = ?", [rule.id])
        out.seconds = round(time.perf_counter() - t1, 4)
        outcomes.append(out)
    wparams = {"since": since, "until": until}
    if since or until:
        con.execute("DELETE FROM _ta_stage WHERE NOT (event_time IS NOT NULL AND "
                    "(CAST($since AS TIMESTAMPTZ) IS NULL OR event_time >= $since) AND "
                    "(CAST($until AS TIMESTAMPTZ) IS NULL OR event_time < $until))", wparams)
        per_rule = dict(con.execute("SELECT rule_id, count(*) FROM _ta_stage GROUP BY rule_id").fetchall())
        for o in outcomes:
            o.findings = per_rule.get(o.id, 0)
    total = con.execute("SELECT count(*) FROM _ta_stage").fetchall()[0][0]
    run_id = started.strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]
    failed = [(o.id, o.error) for o in outcomes if o.error]
    result = RunResult(run_id, plan.globals["now"], total, failed, outcomes, config_hash=plan.config.digest())
    if store:
        store_run(con, plan, result, since, until, started)
    result.seconds = round(time.perf_counter() - t0, 3)
    return result


__all__ = ["run_rules", "RunResult", "RuleOutcome", "EngineError", "ConfigError", "RuleLoadError", "plan_run",
           "execute_plan", "GLOBAL_PARAMS", "list_param"]
