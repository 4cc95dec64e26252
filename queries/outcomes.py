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

STEP_COLUMNS = ["task_id", "seq", "tool", "outcome", "recovered"]
TURN_COLUMNS = ["task_id", "outcome", "writes", "good", "open_bad", "not_created", "unverified"]


@lru_cache(maxsize=4)
def _plan(config_path: str | None):
    return plan_run(config_path, ["said_but_not_done"])


def _models(plan) -> dict:
    return {m.table: m for m in model_order(plan.models)}


def outcomes(con: duckdb.DuckDBPyConnection, task_ids: list[str], config_path: str | None = None
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(turns, steps) for `task_ids`: each turn's outcome with its write counts, and each write
    step's outcome (good | failed | unverified | not_created | not_started | running) and
    whether a later good step recovered it. Tasks not in the warehouse are absent."""
    ids = [t for t in dict.fromkeys(task_ids) if t]
    if not ids:
        return pd.DataFrame(columns=TURN_COLUMNS), pd.DataFrame(columns=STEP_COLUMNS)
    plan = _plan(config_path)
    models = _models(plan)
    cur = con.cursor()
    try:
        cur.execute("CREATE OR REPLACE TEMP TABLE _ta_outcome_ids AS SELECT unnest($ids::VARCHAR[]) AS task_id",
                    {"ids": ids})
        names = models["write_tool_names"]
        cur.execute(f"CREATE OR REPLACE TEMP TABLE write_tool_names AS {names.sql}", _bind(names, plan))
        steps = models["write_steps"]
        cur.execute("CREATE OR REPLACE TEMP TABLE write_steps AS SELECT * FROM (" + steps.sql + ") w "
                    "WHERE w.task_id IN (SELECT task_id FROM _ta_outcome_ids)", _bind(steps, plan))
        turns = models["turn_outcomes"]
        turn_df = cur.execute("SELECT " + ", ".join(TURN_COLUMNS) + " FROM (" + turns.sql + ") o "
                              "WHERE o.task_id IN (SELECT task_id FROM _ta_outcome_ids)", _bind(turns, plan)).df()
        step_df = cur.execute("SELECT " + ", ".join(STEP_COLUMNS) + " FROM write_steps ORDER BY task_id, seq").df()
    finally:
        for t in ("_ta_outcome_ids", "write_tool_names", "write_steps"):
            cur.execute(f"DROP TABLE IF EXISTS temp.{t}")
        cur.close()
    return turn_df, step_df
