"""`trace-audit rules run|list|check|runs|diff`"""

from __future__ import annotations

import sys
from datetime import datetime, timezone

from .errors import UserError
from .options import add_db_option, count


def parse_ts(text: str | None, what: str) -> datetime | None:
    if text is None:
        return None
    try:
        ts = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UserError(f"{what}: expected an ISO 8601 time such as 2026-11-30T00:00:00+08:00, got {text!r}") from None
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


def _config_opts(p) -> None:
    p.add_argument("--config", metavar="FILE", help="trace-audit.toml (default: ./trace-audit.toml if present)")
    p.add_argument("--rules-dir", metavar="DIR", help="extra rules (.sql and .py) to load")


def register(sub) -> None:
    p = sub.add_parser("rules", help="run, list, check and compare the verification rules",
                       description="The rule engine: rules are .sql files in queries/rules/ (see docs/rules.md).")
    rs = p.add_subparsers(dest="rules_command", metavar="ACTION")

    run = rs.add_parser("run", help="run the rules over the warehouse and store the findings")
    add_db_option(run)
    _config_opts(run)
    run.add_argument("--now", help="evaluate as of this time (default: the wall clock, printed)")
    run.add_argument("--since", help="keep findings whose event time is >= this")
    run.add_argument("--until", help="keep findings whose event time is < this")
    run.add_argument("--rule", action="append", metavar="ID", help="run only this rule (repeatable)")
    run.add_argument("--engine", choices=["duckdb", "clickhouse", "chdb", "spark"], default="duckdb",
                     help="where the rules run (findings are stored in the DuckDB warehouse either way; "
                          "see docs/scale-out.md)")
    run.add_argument("--clickhouse-url", metavar="URL", help="with --engine clickhouse: clickhouse://user:pw@host:8123/db")
    run.set_defaults(run=_run)

    ls = rs.add_parser("list", help="the rules, their severity and whether they are enabled")
    _config_opts(ls)
    ls.set_defaults(run=_list)

    ck = rs.add_parser("check", help="lint rule headers and run every rule's fixtures (no database needed)")
    _config_opts(ck)
    ck.add_argument("--engines", metavar="LIST", help="also run every fixture on these engines (e.g. duckdb,chdb) "
                                                     "and compare the findings with DuckDB's")
    ck.add_argument("--clickhouse-url", metavar="URL", help="for --engines clickhouse")
    ck.set_defaults(run=_check)

    runs_ = rs.add_parser("runs", help="the stored rule runs, newest first (id, time, rules, findings, engine)",
                          description="List the stored rule runs, newest first: run id (what `findings --run`, "
                                      "`explain --run` and `rules diff` take), when it started, the --now it "
                                      "evaluated at, the engine, how many rules ran (and failed), and findings.")
    add_db_option(runs_)
    runs_.add_argument("--limit", type=count, default=20, help="at most this many runs (default 20; 0 = all)")
    runs_.add_argument("--json", action="store_true", help="one JSON object per run")
    runs_.set_defaults(run=_runs)

    et = rs.add_parser("explain-tools", help="how each tool in the warehouse was classified (write or read) and why")
    add_db_option(et)
    _config_opts(et)
    et.set_defaults(run=_explain_tools)

    df = rs.add_parser("diff", help="new / resolved findings per rule between two runs")
    add_db_option(df)
    df.add_argument("run_a")
    df.add_argument("run_b", nargs="?", default="latest")
    df.set_defaults(run=_diff)
    p.set_defaults(run=lambda a: (p.print_help(), 2)[1])


def _plan_errors():
    from ..queries.config import ConfigError
    from ..queries.engine import EngineError
    from ..queries.rulefile import RuleLoadError

    return (ConfigError, EngineError, RuleLoadError)


def _run(args) -> int:
    from ..queries.warehouse import db
    from ..queries.engines import EngineQueryError, EngineUnavailable, run_rules_on

    now = parse_ts(args.now, "--now")
    if now is None:
        now = datetime.now(timezone.utc).replace(microsecond=0)
        print(f"--now not given: evaluating at the wall clock, {now.isoformat()}", file=sys.stderr)
    con = db.connect(args.db, wait_seconds=10, create=False)
    try:
        try:
            result = run_rules_on(args.engine, con, now=now, since=parse_ts(args.since, "--since"),
                                  until=parse_ts(args.until, "--until"), rule_ids=args.rule,
                                  config=args.config, rules_dir=args.rules_dir, clickhouse_url=args.clickhouse_url)
        except (*_plan_errors(), EngineUnavailable, EngineQueryError) as exc:
            raise UserError(str(exc)) from None
    finally:
        con.close()
    width = max([len(o.id) for o in result.rules] + [4])
    for o in result.rules:
        state = f"FAILED: {o.error}" if o.error else f"{o.findings:>7,}"
        print(f"{o.id:<{width}}  {o.severity:<6}  {state}")
    print(f"run {result.run_id}: {result.finding_count:,} findings from {len(result.rules)} rules "
          f"in {result.seconds:.2f}s (now={result.now.isoformat()})")
    if result.failed:
        print(f"{len(result.failed)} rule(s) failed: {', '.join(r for r, _ in result.failed)}", file=sys.stderr)
        return 1
    return 0


def _explain_tools(args) -> int:
    from ..queries.reading.tables import tool_table
    from ..queries.warehouse import db

    try:
        from ..queries.engine import plan_run

        plan = plan_run(args.config, None, args.rules_dir)
    except _plan_errors() as exc:
        raise UserError(str(exc)) from None
    con = db.connect(args.db, read_only=True, wait_seconds=5)
    try:
        table = tool_table(con, plan).to_pylist()
        calls = dict(con.execute("SELECT tool, count(*) FROM steps WHERE tool IS NOT NULL GROUP BY tool").fetchall())
        for r in table:
            r["steps"] = calls.get(r["tool"], 0)
    finally:
        con.close()
    if not table:
        print("no tools in the warehouse")
        return 0
    width = min(max(len(r["tool"]) for r in table), 48)
    print(f"{'tool':<{width}}  {'class':<5}  {'action':<7}  {'steps':>9}  why")
    for r in sorted(table, key=lambda r: (not r["is_write"], r["tool"])):
        print(f"{r['tool']:<{width}}  {'write' if r['is_write'] else 'read':<5}  {r['action'] or '-':<7}  "
              f"{r['steps']:>9,}  {r['reason']}")
    writes = sum(r["is_write"] for r in table)
    print(f"{len(table)} tools: {writes} write, {len(table) - writes} read or unknown "
          f"(change with [write_tools] names / read_names / exclude / patterns in trace-audit.toml)")
    return 0


def _list(args) -> int:
    try:
        from ..queries.engine import plan_run

        plan = plan_run(args.config, None, args.rules_dir)
    except _plan_errors() as exc:
        raise UserError(str(exc)) from None
    from ..queries.rulefile import load_rules

    enabled = {r.id for r in plan.rules}
    dirs = [d for d in (plan.config.resolved_rules_dir(), args.rules_dir) if d]
    rules = [r for r in load_rules(dirs) if not r.is_model]
    width = max(len(r.id) for r in rules)
    for r in rules:
        on = "on " if r.id in enabled else "off"
        print(f"{r.id:<{width}}  {plan.severity[r.id]:<6}  {on}  {r.header.title}")
    return 0


def _check(args) -> int:
    from pathlib import Path

    from .rule_fixtures import discover, run_fixture
    from ..queries.rulefile import load_rules

    try:
        from ..queries.engine import plan_run

        plan = plan_run(args.config, None, args.rules_dir)
    except _plan_errors() as exc:
        raise UserError(str(exc)) from None
    extra = [Path(args.rules_dir)] if args.rules_dir else []
    rules = [r for r in load_rules(extra) if not r.is_model]
    fixtures = discover(extra)
    problems = 0
    for r in rules:
        files = fixtures.get(r.id, [])
        if not any(f.name.startswith("fire") for f in files) or not any(f.name.startswith("pass") for f in files):
            print(f"MISSING {r.id}: needs fixtures/{r.id}/fire_*.jsonl and pass_*.jsonl")
            problems += 1
        for f in files:
            res = run_fixture(r.id, f, extra)
            print(f"{'ok     ' if res.ok else 'FAILED '} {r.id}/{f.name}: {res.detail}")
            problems += 0 if res.ok else 1
    from ..queries.lexicon import LEXICON_FILE, lint, load_data

    lex_problems = lint(load_data())
    for problem in lex_problems:
        print(f"LEXICON {problem}")
    problems += len(lex_problems)
    print(f"{'ok     ' if not lex_problems else 'FAILED '} lexicon {LEXICON_FILE.name}: "
          f"{len(lex_problems)} problem(s)")
    from ..queries.portable_lint import lint_rules

    for lint in lint_rules(load_rules(extra)):
        print(f"PORTABLE {lint}")
        problems += 1
    if args.engines:
        from ..queries.engines import EngineUnavailable
        from .engine_check import compare_fixtures

        try:
            for c in compare_fixtures([e.strip() for e in args.engines.split(",") if e.strip()], extra,
                                      args.clickhouse_url):
                print(c)
                problems += 0 if c.ok else 1
        except EngineUnavailable as exc:
            raise UserError(str(exc)) from None
    print(f"{len(rules)} rules, headers valid; {problems} problem(s); config {plan.config.digest()[:12]}")
    return 1 if problems else 0


def _diff(args) -> int:
    from ..queries import runs
    from ..queries.warehouse import db

    con = db.connect(args.db, read_only=True, wait_seconds=5)
    try:
        try:
            a, b, rows = runs.diff(con, args.run_a, args.run_b)
        except runs.RunNotFound as exc:
            raise UserError(str(exc)) from None
    finally:
        con.close()
    print(f"A = {a}\nB = {b}")
    width = max([len(r["rule_id"]) for r in rows] + [4])
    print(f"{'rule':<{width}}  {'A':>7}  {'B':>7}  {'new':>7}  {'resolved':>8}")
    for r in rows:
        print(f"{r['rule_id']:<{width}}  {r['in_a']:>7,}  {r['in_b']:>7,}  {r['new']:>7,}  {r['resolved']:>8,}")
    return 0


def _runs(args) -> int:
    import json

    from ..queries import runs
    from ..queries.warehouse import db

    if args.limit < 0:
        raise UserError(f"--limit must be 0 (all) or more, got {args.limit}")
    con = db.connect(args.db, read_only=True, wait_seconds=5)
    try:
        rows = runs.list_runs(con, args.limit or None)
    finally:
        con.close()
    if args.json:
        for r in rows:
            print(json.dumps({k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in r.items()}))
        return 0
    if not rows:
        print("no rule run stored yet; run: trace-audit rules run", file=sys.stderr)
        return 0
    print(f"{'run id':<26}  {'started (UTC)':<19}  {'now (UTC)':<19}  {'engine':<10}  {'rules':>5}  "
          f"{'failed':>6}  {'findings':>8}")
    for r in rows:
        when = r["started_at"].astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S") if r["started_at"] else "-"
        now = r["now_ts"].astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S") if r["now_ts"] else "-"
        print(f"{r['run_id']:<26}  {when:<19}  {now:<19}  {r['engine'] or '-':<10}  {r['rule_count']:>5}  "
              f"{r['failed_count']:>6}  {r['finding_count'] or 0:>8,}")
    return 0
