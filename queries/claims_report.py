"""What each claim of one turn rests on (issue 15): per claimed action, the write that backs it
or "none"; per value, what the user was told (or asked for), what the write was given, what
was read back or stored and where that came from, and whether they agree.

One function for `trace-audit explain` and the dashboard's investigate page. Both read the
turn model's own tables, claimed_actions (`rules/_claimed_actions.sql`) and value_checks
(`reading/value_checks.py`), through `dashboard/turn_claimed_actions.sql` and
`dashboard/turn_value_checks.sql`:
- explain evaluates the rules live, so the tables are already on its connection
  (`model_ready=True`);
- the page has no rule run of its own: the turn model is built here, on a cursor, over the
  turn's conversation only (`dashboard/turn_claim_scope.sql`: temp copies of its tasks,
  messages and steps stand in for the warehouse's on that cursor, which is then closed).
Temp tables only, so a read-only connection is enough.
"""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import duckdb

from .config import ConfigError
from .engine import EngineError, _prepare, plan_run  # noqa: PLC2701 - the engine's own turn model, not a copy
from .rulefile import RuleLoadError
from .run_schedule import SCRATCH

_SQL = Path(__file__).resolve().parent / "dashboard"
_SHADOWED = ("tasks", "messages", "steps")
_NEEDED = ("claimed_actions", "value_checks", "turn_replies")
# where the stored value was taken from, in words
FROM_WORDS = {"readback": "read back", "result": "result", "args": "args"}


@dataclass
class ClaimsReport:
    task_id: str
    actions: list[dict[str, Any]] = field(default_factory=list)  # turn_claimed_actions.sql rows
    told: list[dict[str, Any]] = field(default_factory=list)     # value rows told to the user
    asked: list[dict[str, Any]] = field(default_factory=list)    # value rows the user asked for
    error: str | None = None  # the turn model could not be built: why

    @property
    def unbacked(self) -> list[dict[str, Any]]:
        return [a for a in self.actions if a["status"] in ("none", "taken")]


def stored_text(row: dict[str, Any]) -> str:
    """The value read back or stored, with where it came from: 'basic_economy (from result)'."""
    if row.get("stored") is None:
        return "-"
    return f"{row['stored']} (from {FROM_WORDS.get(row.get('stored_from'), row.get('stored_from'))})"


def action_text(row: dict[str, Any]) -> str:
    """The claimed action in words: 'create bag', 'update', '(no action named)'."""
    words = " ".join(str(w) for w in (row.get("action"), row.get("object")) if w)
    return words or "(no action named)"


@lru_cache(maxsize=4)
def _plan(config_path: str | None):
    # a turn's report shows every value told, the ones that agreed too
    return dataclasses.replace(plan_run(config_path, ["said_but_not_done"]), value_matches=True)


def _sql(name: str) -> str:
    return (_SQL / f"{name}.sql").read_text("utf-8")


def _dicts(con: duckdb.DuckDBPyConnection, name: str, task_id: str) -> list[dict[str, Any]]:
    res = con.execute(_sql(name), {"task_id": task_id})
    names = [d[0] for d in res.description]
    return [dict(zip(names, row)) for row in res.fetchall()]


def _missing(con: duckdb.DuckDBPyConnection, live_run: bool = False) -> list[str]:
    """The turn-model tables `con` lacks; live_run: also those a rules run on con left in its scratch
    catalog (a run with several workers keeps its tables there)."""
    have = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary OR "
                                      "($live AND database_name = $s)", {"live": live_run, "s": SCRATCH}).fetchall()}
    return [t for t in _NEEDED if t not in have]


def _read(con: duckdb.DuckDBPyConnection, task_id: str, live_run: bool = False) -> ClaimsReport:
    missing = _missing(con, live_run)
    if missing:
        return ClaimsReport(task_id, error=f"the turn model has no {', '.join(missing)} (see the rules' errors)")
    values = _dicts(con, "turn_value_checks", task_id)
    return ClaimsReport(task_id, _dicts(con, "turn_claimed_actions", task_id),
                        [v for v in values if v["check_kind"] == "told"],
                        [v for v in values if v["check_kind"] == "asked"])


def claims_report(con: duckdb.DuckDBPyConnection, task_id: str, model_ready: bool = False,
                  config_path: str | None = None) -> ClaimsReport:
    """The claims of `task_id`'s replies and the values checked, in reply order.

    model_ready: the turn model's temp tables are on `con` already (a live rules run, as explain
    makes); else they are built on a cursor of `con` for this turn's conversation only. A turn
    model that cannot be built (a broken rules config or lexicon) is the report's error, so a
    page shows the rest of the turn."""
    if model_ready:
        return _read(con, task_id, live_run=True)
    try:
        plan = _plan(config_path)
    except (EngineError, ConfigError, RuleLoadError) as exc:
        return ClaimsReport(task_id, error=str(exc))
    cur = con.cursor()  # its own temp tables: the caller's connection never sees the stand-ins
    try:
        cur.execute("CREATE OR REPLACE TEMP TABLE _ta_claim_turn AS SELECT CAST($t AS VARCHAR) AS task_id",
                    {"t": task_id})
        cur.execute(_sql("turn_claim_scope"))
        for name in _SHADOWED:
            cur.execute(f"ALTER TABLE temp._ta_scope_{name} RENAME TO {name}")
        failed = _prepare(cur, plan)
        if _missing(cur) and failed:
            return ClaimsReport(task_id, error="; ".join(f"{t}: {e}" for t, e in failed.items()))
        return _read(cur, task_id)
    finally:
        for (name,) in cur.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall():
            cur.execute(f'DROP TABLE IF EXISTS temp."{name}"')
        cur.close()
