"""What a turn and each of its write steps really achieved, as the rules state it.

The outcome of a step (`_write_steps.sql`) and of a turn (`_turn_outcomes.sql`) are
defined once, in the turn model the rules run on. Readers of one turn or a handful of
turns (the dashboard's verdict, its users and conversations views) ask here instead of
classifying steps themselves: the model's own SQL runs with the same bound values a rule
run uses, narrowed to the tasks asked for. Temp tables only, so a read-only connection
is enough.
"""

from __future__ import annotations

from functools import lru_cache

import duckdb
import pandas as pd

from .engine import _bind, model_order, plan_run  # noqa: PLC2701 - the engine's own binding, not a copy
from .reading.tables import tool_table

STEP_COLUMNS = ["task_id", "seq", "tool", "outcome", "recovered"]
TURN_COLUMNS = ["task_id", "outcome", "writes", "good", "open_bad", "not_created", "unverified"]


@lru_cache(maxsize=4)
def _plan(config_path: str | None):
    return plan_run(config_path, ["said_but_not_done"])


def _needed(plan) -> list:
    """The turn-model files _turn_outcomes reads, directly or not, in build order."""
    by_table = {m.table: m for m in plan.models}
    want, todo = set(), ["turn_outcomes"]
    while todo:
        t = todo.pop()
        if t in by_table and t not in want:
            want.add(t)
            todo += by_table[t].dependencies
    return [m for m in model_order(plan.models) if m.table in want]


def write_tool_table(con: duckdb.DuckDBPyConnection, config_path: str | None = None):
    """tool_classes for the warehouse's tools (one row per tool name), as a rules run types them."""
    return tool_table(con, _plan(config_path))


def outcomes(con: duckdb.DuckDBPyConnection, task_ids: list[str], config_path: str | None = None
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(turns, steps) for `task_ids`: each turn's outcome with its write counts, and each write
    step's outcome (good | failed | unverified | not_created | not_started | running) and
    whether a later good step recovered it. Tasks not in the warehouse are absent."""
    ids = [t for t in dict.fromkeys(task_ids) if t]
    if not ids:
        return pd.DataFrame(columns=TURN_COLUMNS), pd.DataFrame(columns=STEP_COLUMNS)
    plan = _plan(config_path)
    models = _needed(plan)
    cur = con.cursor()
    made = ["_ta_outcome_ids", "tool_classes"]
    try:
        cur.execute("CREATE OR REPLACE TEMP TABLE _ta_outcome_ids AS SELECT unnest($ids::VARCHAR[]) AS task_id",
                    {"ids": ids})
        cur.register("_ta_tools", tool_table(cur, plan))  # one row per tool name: cheap, unlike reply readings
        cur.execute("CREATE OR REPLACE TEMP TABLE tool_classes AS SELECT * FROM _ta_tools")
        cur.unregister("_ta_tools")
        for m in models[:-1]:
            narrow = " WHERE x.task_id IN (SELECT task_id FROM _ta_outcome_ids)" if m.table == "write_steps" else ""
            cur.execute(f"CREATE OR REPLACE TEMP TABLE {m.table} AS SELECT * FROM ({m.sql}) x{narrow}",
                        _bind(m, plan))
            made.append(m.table)
        turns = models[-1]
        turn_df = cur.execute("SELECT " + ", ".join(TURN_COLUMNS) + " FROM (" + turns.sql + ") o "
                              "WHERE o.task_id IN (SELECT task_id FROM _ta_outcome_ids)", _bind(turns, plan)).df()
        step_df = cur.execute("SELECT " + ", ".join(STEP_COLUMNS) + " FROM write_steps ORDER BY task_id, seq").df()
    finally:
        for t in made:
            cur.execute(f"DROP TABLE IF EXISTS temp.{t}")
        cur.close()
    return turn_df, step_df
