"""`trace-audit demo`: sample month loaded, rules run, dashboard served."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from .errors import UserError
from .options import add_db_option, port

SAMPLE_TZ = "Asia/Shanghai"  # the seed-004 sample dumps hold naive Beijing times


def demo_db_default() -> str:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "trace-audit"
    base.mkdir(parents=True, exist_ok=True)
    return str(base / "demo.duckdb")


def register(sub) -> None:
    p = sub.add_parser("demo", help="load the sample month, run the rules, serve the dashboard",
                       description="Build a fresh database from the bundled sample month (a reminder assistant, "
                                   "2026-W45..W48), run every rule, and serve the dashboard. Works from any folder; "
                                   "the database goes to ~/.cache/trace-audit/demo.duckdb unless --db is given.")
    add_db_option(p, "~/.cache/trace-audit/demo.duckdb, under $XDG_CACHE_HOME when set")
    p.add_argument("--port", type=port, default=8501, help="dashboard port (default 8501)")
    p.add_argument("--no-serve", action="store_true", help="build the database and print stats, do not serve")
    p.set_defaults(run=run)


def sample_paths() -> list[str]:
    root = resources.files("trace_audit.sample_data")
    out = []
    for sub in ("seed004", "seed001"):
        d = Path(str(root.joinpath(sub)))
        if d.is_dir():
            out.append(str(d))
    return out


DEMO_MARK = "demo_sample_month"  # meta key: this warehouse was made by `demo` and may be rebuilt by it


def _made_by_demo(db_path: str) -> bool:
    from ..queries.warehouse import db

    try:
        con = db.connect(db_path, read_only=True)
    except db.DatabaseError:
        return False
    try:
        return bool(con.execute("SELECT 1 FROM meta WHERE key = ?", [DEMO_MARK]).fetchall())
    except Exception:  # noqa: BLE001 - no meta table: not ours
        return False
    finally:
        con.close()


def build_demo_db(db_path: str) -> None:
    from ..ingest.load.loader import ingest

    if os.path.exists(db_path):
        if not _made_by_demo(db_path):
            raise UserError(f"{db_path} exists and was not made by demo; demo never deletes a warehouse it did "
                            "not make. Pass another --db (a new path), or remove that file yourself")
    for suffix in ("", ".wal"):
        if os.path.exists(db_path + suffix):
            os.unlink(db_path + suffix)
    summary = ingest(sample_paths(), db_path, tz=SAMPLE_TZ, progress=False)
    t = summary.totals()
    print("sample month loaded: " + ", ".join(f"{n} {k}" for k, n in t.items()))
    from ..queries.warehouse import db

    con = db.connect(db_path)
    try:
        con.execute("INSERT INTO meta VALUES (?, 'true')", [DEMO_MARK])
    finally:
        con.close()
    try:
        from ..queries.engine import run_rules  # the rule engine, when installed
    except ModuleNotFoundError:
        return

    con = db.connect(db_path)
    try:
        run = run_rules(con, now=None)
        print(f"rules run {run.run_id}: {run.finding_count} findings")
    finally:
        con.close()


def run(args) -> int:
    db_path = args.db or demo_db_default()
    build_demo_db(db_path)
    if args.no_serve:
        from . import cmd_stats

        args.json, args.errors, args.spool = False, False, None
        args.db = db_path
        return cmd_stats.run(args)
    try:
        from ..dashboard.serve import serve
    except ModuleNotFoundError:
        from . import cmd_stats

        args.json, args.errors, args.spool, args.db = False, False, None, db_path
        return cmd_stats.run(args)
    return serve(db_path, port=args.port, tz=SAMPLE_TZ)
