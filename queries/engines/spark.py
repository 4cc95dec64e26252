"""Spark (pip install 'trace-audit[spark]'; needs Java 17+): the rules over a Parquet export.

`attach` writes the warehouse's rule tables as Hive-partitioned Parquet (the
same files `trace-audit export --parquet` writes) into a scratch directory and
registers each as a temporary view; the session runs in local mode, in UTC. A
lakehouse that already holds such Parquet can point `SparkEngine(parquet_dir=)`
at it instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import duckdb
import pyarrow as pa

from .base import RULE_TABLES, Engine, EngineQueryError, EngineUnavailable

_SPARK_TYPES = {"VARCHAR": "string", "JSON": "string", "BOOLEAN": "boolean", "INTEGER": "int", "BIGINT": "bigint",
                "DOUBLE": "double", "TIMESTAMP WITH TIME ZONE": "timestamp", "TIMESTAMP": "timestamp",
                "DATE": "date"}


class SparkEngine(Engine):
    name = "spark"
    dialect = "spark"

    def __init__(self, parquet_dir: str | None = None, master: str = "local[2]") -> None:
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise EngineUnavailable("--engine spark needs pyspark (and Java 17+): "
                                    "pip install 'trace-audit[spark]'") from None
        self._scratch = None if parquet_dir else tempfile.mkdtemp(prefix="trace-audit-spark-")
        self._dir = parquet_dir or self._scratch
        try:
            self._spark = (SparkSession.builder.master(master).appName("trace-audit")
                           .config("spark.sql.session.timeZone", "UTC")
                           .config("spark.sql.shuffle.partitions", "2")
                           .config("spark.ui.enabled", "false")
                           # the status store keeps each query's plan description (1,000 by default);
                           # the rules' plans are large, and a long session filled the heap with them
                           .config("spark.sql.ui.retainedExecutions", "20")
                           .config("spark.ui.retainedJobs", "50")
                           .config("spark.ui.retainedStages", "50")
                           # the turn model's plans (claims, their fitting writes) outgrow the 1 GB default
                           .config("spark.driver.memory", os.environ.get("TRACE_AUDIT_SPARK_DRIVER_MEMORY", "4g"))
                           .config("spark.sql.ansi.enabled", "false")
                           # Spark 4.3 loses a column in UNION constraint rewriting ("key not found: msg_index#..."
                           # on said_but_not_done); the rules gain nothing from inferred constraints.
                           .config("spark.sql.constraintPropagation.enabled", "false")
                           .getOrCreate())
        except Exception as exc:  # noqa: BLE001 - JVM start-up failures
            raise EngineUnavailable(f"cannot start Spark (is Java 17+ installed?): {exc}") from None
        self._views: list[str] = []
        self._cached: dict = {}  # name -> the cached DataFrame behind that temp view

    def execute(self, sql: str) -> None:
        try:
            self._spark.sql(sql).collect()
        except Exception as exc:  # noqa: BLE001
            raise EngineQueryError(f"spark: {_first_line(exc)}") from None

    def query_arrow(self, sql: str) -> pa.Table:
        try:
            return self._spark.sql(sql).toArrow()
        except Exception as exc:  # noqa: BLE001
            raise EngineQueryError(f"spark: {_first_line(exc)}") from None

    def create_temp_table(self, name: str, select_sql: str) -> None:
        try:
            # a table replaced (the next run on this session) gives its cached rows back first: the
            # cache manager keeps a replaced view's data otherwise, and a long session runs out of heap
            old = self._cached.pop(name, None)
            if old is not None:
                old.unpersist()
            # materialised now, like a temp table elsewhere, and cut from the plan that made it: a view
            # over a cached plan is matched against the cache by plan, and a miss recomputes every
            # model beneath it at each reference (the claim models' self-joins then ran out of heap)
            df = self._spark.sql(select_sql).localCheckpoint(eager=True)
            df.createOrReplaceTempView(name)
            self._cached[name] = df
        except Exception as exc:  # noqa: BLE001
            raise EngineQueryError(f"spark: {_first_line(exc)}") from None
        self._views.append(name)

    def create_values_table(self, name: str, columns: list[tuple[str, str]], rows: pa.Table) -> None:
        schema = ", ".join(f"`{c}` {_SPARK_TYPES.get(t.upper(), 'string')}" for c, t in columns)
        df = self._spark.createDataFrame(rows.to_pylist() if rows.num_rows else [], schema=schema)
        df.createOrReplaceTempView(name)
        self._views.append(name)

    def attach(self, warehouse: duckdb.DuckDBPyConnection) -> None:
        # a new run on a kept session: nothing the last run cached is needed again
        for df in self._cached.values():
            df.unpersist()
        self._cached.clear()
        self._spark.catalog.clearCache()
        if self._scratch:
            from ..export import write_parquet

            write_parquet(warehouse, self._scratch, overwrite=True)
        from ..export import columns

        for table in RULE_TABLES:
            path = os.path.join(self._dir, table)
            cols = columns(warehouse, table)
            if os.path.isdir(path) and any(os.scandir(path)):
                df = self._spark.read.option("basePath", path).parquet(path).drop("day")
            else:  # an empty table has no files: an empty view of the right shape
                schema = ", ".join(f"`{c}` {_SPARK_TYPES.get(t.upper(), 'string')}" for c, t in cols)
                df = self._spark.createDataFrame([], schema=schema)
            df.createOrReplaceTempView(table)
            self._views.append(table)

    def close(self) -> None:
        for name in self._views:
            try:
                self._spark.catalog.dropTempView(name)
            except Exception:  # noqa: BLE001
                pass
        self._spark.catalog.clearCache()
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:600] if text else type(exc).__name__
