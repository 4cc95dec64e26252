"""A rules run's jobs (the turn-model tables, the value checks, each rule) over several cursors of one
connection, each job as soon as the tables it reads exist.

Most of a run is queries that DuckDB runs on about one core each (window functions, joins of a few
hundred thousand rows into tables of the same size), so one query after another leaves a core idle.
Independent ones run side by side instead: write_steps beside turn_replies, audit_mismatch beside
the claim models. The tables they share live in an in-memory catalog attached to the connection
(SCRATCH): a TEMP table is seen by one cursor only, an attached catalog by all of them.

Where no catalog can be attached (a read-only warehouse: DuckDB will not start an in-memory
database inside a read-only one) or one worker is asked for, every job runs on the connection
itself, in the same order, with TEMP tables, as before.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Callable

import duckdb

from .reading.tables import INPUTS

SCRATCH = "_ta_run"

# Tables a run leaves on its connection under these names; a TEMP table of the same name, left by
# an earlier run on that connection in one worker, would hide the run's own (TEMP comes first).
RUN_TABLES = ("argument_bounds", *INPUTS, "_ta_stage")


def default_workers() -> int:
    """Cursors for one run: the machine's cores, at most 4 (beyond that the queries wait on memory)."""
    env = os.environ.get("TRACE_AUDIT_RULE_WORKERS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class Scratch:
    """Where a run's tables go. catalog None: TEMP tables on the connection, one worker."""

    catalog: str | None
    workers: int
    search_path: str = ""  # the SET statement that lets a cursor read the run's tables by bare name

    def create(self, table: str, body: str) -> str:
        """CREATE OR REPLACE for `table` with `body` ("AS SELECT ..." or "(col TYPE, ...)")."""
        if self.catalog is None:
            return f"CREATE OR REPLACE TEMP TABLE {table} {body}"
        return f"CREATE OR REPLACE TABLE {self.catalog}.main.{table} {body}"

    def qualified(self, table: str) -> str:
        return table if self.catalog is None else f"{self.catalog}.main.{table}"

    def cursor(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        """A cursor of `con` that reads the run's tables by their bare names."""
        cur = con.cursor()
        cur.execute(self.search_path)
        return cur


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def search_path_sql(con: duckdb.DuckDBPyConnection) -> str:
    """The warehouse first, then the scratch catalog. The first entry is also where an unqualified
    CREATE goes and what current_database() answers, so the warehouse must stay first."""
    database = con.execute("SELECT current_database()").fetchall()[0][0]
    path = f"{_quoted(database)}.main,{SCRATCH}.main".replace("'", "''")
    return f"SET search_path = '{path}'"


def open_scratch(con: duckdb.DuckDBPyConnection, workers: int, tables: list[str]) -> Scratch:
    """The run's Scratch on `con`: the attached catalog when `workers` > 1 and it can be attached.
    `tables`: the names the run will create; a warehouse table of one of those names would hide
    the run's own in the search path, so then the run keeps to TEMP tables (which come first)."""
    if workers <= 1:
        return Scratch(None, 1)
    clash = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                        "AND schema_name = 'main' AND table_name IN (SELECT unnest($t::VARCHAR[]))",
                        {"t": list(tables) + list(RUN_TABLES)}).fetchall()[0][0]
    if clash:
        return Scratch(None, 1)
    try:
        attached = con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name = $n",
                               {"n": SCRATCH}).fetchall()[0][0]
        if not attached:
            con.execute(f"ATTACH ':memory:' AS {SCRATCH}")
    except duckdb.Error:
        return Scratch(None, 1)  # read-only warehouse
    search_path = search_path_sql(con)
    con.execute(search_path)
    for name in list(RUN_TABLES) + list(tables):
        con.execute(f'DROP TABLE IF EXISTS temp.main."{name}"')
    return Scratch(SCRATCH, workers, search_path)


@dataclass
class Job:
    """One unit of a run. `run` gets the cursor to use; on_con: it needs the connection itself
    (TEMP tables or registered views of it), so such jobs run one at a time."""

    name: str
    run: Callable[[duckdb.DuckDBPyConnection], None]
    deps: set[str] = field(default_factory=set)
    on_con: bool = False
    cost: float = 0.0  # seconds it took last time, if known: of two jobs ready, the longer starts first


def _heights(jobs: dict[str, Job], waiting: dict[str, set[str]]) -> dict[str, int]:
    """Longest chain of jobs that wait on each job: the longest chains start first."""
    dependents: dict[str, list[str]] = {n: [] for n in jobs}
    for n, deps in waiting.items():
        for d in deps:
            dependents[d].append(n)
    height: dict[str, int] = {}
    visiting: set[str] = set()

    def of(n: str) -> int:
        if n not in height:
            if n in visiting:
                raise RuntimeError("rules run: jobs wait on each other: " + ", ".join(sorted(visiting)))
            visiting.add(n)
            height[n] = 1 + max((of(d) for d in dependents[n]), default=0)
            visiting.discard(n)
        return height[n]

    for n in jobs:
        of(n)
    return height


def run_jobs(con: duckdb.DuckDBPyConnection, jobs: list[Job], scratch: Scratch) -> None:
    """Run every job once each job it depends on has finished. A job records its own failure (a
    rule's error is a result); an exception out of one is a bug and is raised once the others stop."""
    by_name = {j.name: j for j in jobs}
    waiting = {j.name: {d for d in j.deps if d in by_name} for j in jobs}
    if scratch.catalog is None:
        _run_in_order(con, by_name, waiting)
        return
    order = {j.name: i for i, j in enumerate(jobs)}
    height = _heights(by_name, waiting)
    local = threading.local()
    cursors: list[duckdb.DuckDBPyConnection] = []
    lock = threading.Lock()

    def cursor() -> duckdb.DuckDBPyConnection:
        cur = getattr(local, "cur", None)
        if cur is None:
            cur = local.cur = scratch.cursor(con)
            with lock:
                cursors.append(cur)
        return cur

    def execute(job: Job) -> None:
        job.run(con if job.on_con else cursor())

    ready = [n for n, deps in waiting.items() if not deps]
    started: set[str] = set()
    running: dict = {}
    try:
        with ThreadPoolExecutor(max_workers=scratch.workers, thread_name_prefix="trace-audit-rules") as pool:
            while ready or running:
                ready.sort(key=lambda n: (-height[n], -by_name[n].cost, order[n]))
                con_busy = any(j.on_con for j in running.values())
                for n in list(ready):
                    if len(running) >= scratch.workers:
                        break
                    job = by_name[n]
                    if job.on_con and con_busy:
                        continue
                    ready.remove(n)
                    started.add(n)
                    running[pool.submit(execute, job)] = job
                    con_busy = con_busy or job.on_con
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    job = running.pop(future)
                    future.result()
                    for n, deps in waiting.items():
                        if job.name in deps:
                            deps.discard(job.name)
                            if not deps:
                                ready.append(n)
        if len(started) < len(by_name):
            raise RuntimeError("rules run: jobs wait on each other: " + ", ".join(sorted(set(by_name) - started)))
    except BaseException:
        for cur in cursors + [con]:
            try:
                cur.interrupt()
            except duckdb.Error:
                pass
        raise
    finally:
        for cur in cursors:
            cur.close()


def _run_in_order(con: duckdb.DuckDBPyConnection, by_name: dict[str, Job], waiting: dict[str, set[str]]) -> None:
    done: set[str] = set()
    pending = list(by_name)
    while pending:
        n = next((n for n in pending if waiting[n] <= done), None)
        if n is None:
            raise RuntimeError("rules run: jobs wait on each other: " + ", ".join(sorted(pending)))
        by_name[n].run(con)
        done.add(n)
        pending.remove(n)
