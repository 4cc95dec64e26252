"""Rule engines: the same rule files on DuckDB (default), ClickHouse, chDB and Spark.

    from . import run_rules_on
    result = run_rules_on("chdb", con, now=now)   # same RunResult as engine.run_rules

See docs/scale-out.md.
"""

from .base import ENGINE_NAMES, Engine, EngineQueryError, EngineUnavailable
from .runner import engine_sql, open_engine, run_plan_on, run_rules_on

__all__ = ["ENGINE_NAMES", "Engine", "EngineQueryError", "EngineUnavailable", "engine_sql", "open_engine",
           "run_plan_on", "run_rules_on"]
