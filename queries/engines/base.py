"""What every rule engine offers the runner (`runner.run_rules_on`).

An engine holds a session on some SQL system in UTC. The runner makes the
warehouse tables visible to it (`attach`), materialises the turn model with
`create_temp_table`, runs each rule with `query_arrow`, and hands the Arrow
result back to DuckDB, which stores the findings. DuckDB itself is not an
`Engine`: it runs rules natively (see runner.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import duckdb
import pyarrow as pa

from ..warehouse.tables import TRACE_TABLES

ENGINE_NAMES = ("duckdb", "clickhouse", "chdb", "spark")

# The warehouse tables rules read; the others (ingest bookkeeping, findings) stay in DuckDB.
RULE_TABLES = TRACE_TABLES


class EngineUnavailable(Exception):
    """The engine cannot be used here: a package is missing or the server is unreachable."""


class EngineQueryError(Exception):
    """A statement failed on the engine; the text says which engine and what it answered."""


class Engine(ABC):
    name: str = ""
    dialect: str = ""  # sqlglot dialect of the generated SQL

    @property
    def override_suffix(self) -> str:
        """Hand-written per-engine rule files are `<id>.<suffix>.sql` next to the rule."""
        return self.dialect

    @abstractmethod
    def attach(self, warehouse: duckdb.DuckDBPyConnection) -> None:
        """Make RULE_TABLES queryable (copy them, or check that they are there already)."""

    @abstractmethod
    def execute(self, sql: str) -> None: ...

    @abstractmethod
    def query_arrow(self, sql: str) -> pa.Table: ...

    @abstractmethod
    def create_temp_table(self, name: str, select_sql: str) -> None:
        """A session-scoped table holding the result of `select_sql` (replacing any of that name)."""

    @abstractmethod
    def create_values_table(self, name: str, columns: list[tuple[str, str]], rows: pa.Table) -> None:
        """A session-scoped table of `rows`; `columns` are (name, DuckDB type)."""

    def close(self) -> None:  # noqa: B027 - optional
        pass

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def override_path(rule_path: Path, suffix: str) -> Path:
    return rule_path.with_name(f"{rule_path.stem}.{suffix}.sql")
