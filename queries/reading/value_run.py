"""value_checks as a rules run makes it: inputs gathered in SQL, each distinct comparison made
once in Python and kept between runs (value_cache, request_cache; stored with the run's
findings like the readings: cache.py), verdicts drawn in SQL (value_checks_sql.py).

A comparison is keyed by a hash of its content (k: the values told or asked, the write's
fields, the hour, the zone), so a run compares only what no run of its reader compared before.
"""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa

from .cache import has_column, has_table, reader_version
from .rows import temp_table, temp_table_of
from .value_checks import _ASKABLE, Comparer, _compared, _said
from .stored_values import stored_values
from .told_times import one_clause_time
from .value_checks_sql import (ASKED, ASKED_INPUTS, ASKED_TASKS, ASKED_VERDICTS, ASKED_WRITES, MESSAGE_OFFSETS,
                               REQUESTS, TOLD, TOLD_INPUTS, TOLD_REPLIES, TOLD_TASKS, TOLD_VERDICTS, TURN_OFFSETS)

RESULT_COLUMNS = [("check_kind", "VARCHAR"), ("k", "UBIGINT"), ("vi", "INTEGER"), ("field", "VARCHAR"),
                  ("value_type", "VARCHAR"), ("told", "VARCHAR"), ("written", "VARCHAR"), ("stored", "VARCHAR"),
                  ("stored_from", "VARCHAR"), ("verdict", "VARCHAR")]


def askable(values: list[dict]) -> list[dict]:
    """The values of a request a write can be asked to hold; an id given as another person's (她会员号 …)
    says who else the thing is for, not what this write holds. A bound asked ("top up when it drops below
    $50") asks for a bound: only a field holding one (min_balance) holds it (field_words.off_kind)."""
    return [{**v, "bound_only": True} if v.get("bound") else v
            for v in values if v.get("type") in _ASKABLE and not v.get("other")]


def _requests(con: duckdb.DuckDBPyConnection, version: str, cached: bool, reader) -> None:
    """_ta_asks_with (asked, asks): the requests that state a value a write can hold, and those
    values as JSON; _ta_new_requests: the requests read in this run."""
    con.execute(REQUESTS)
    known = "SELECT text_key FROM request_cache WHERE reader = $v" if cached else "SELECT NULL::UHUGEINT WHERE FALSE"
    todo = con.execute(f"SELECT text_key, asked FROM _ta_requests WHERE text_key NOT IN ({known})",
                       {"v": version} if cached else {}).fetchall()
    keys, asks = [], []
    if todo:
        value_reader = reader()
        for key, text in todo:
            found = askable(value_reader.extract(text))
            keys.append(str(key))
            asks.append(json.dumps(found, ensure_ascii=False) if found else None)
    temp_table(con, "_ta_new_requests", [("text_key", "VARCHAR"), ("asks", "VARCHAR")], {"text_key": keys, "asks": asks})
    kept = "UNION ALL SELECT text_key, asks FROM request_cache WHERE reader = $v" if cached else ""
    con.execute(f"""CREATE OR REPLACE TEMP TABLE _ta_asks_with AS
        SELECT r.asked, a.asks FROM _ta_requests r
        JOIN (SELECT CAST(text_key AS UHUGEINT) AS text_key, asks FROM _ta_new_requests {kept}) a
          ON a.text_key = r.text_key
        WHERE a.asks IS NOT NULL""", {"v": version} if cached else {})


def _turn_offsets(con: duckdb.DuckDBPyConnection, half: str, tasks: str, replies: str = "") -> None:
    """The user's zone where nobody named one, per task of a half (told, asked): the one offset the
    turn's steps write local times in (_ta_<half>turn_offset), else the one its messages and start
    were written with (_ta_<half>message_offset). In that order: a step's local time is the system
    speaking in the user's zone about the very value compared; a message's time says where the
    conversation was logged, which is the user's zone only where it is not UTC."""
    con.execute(TURN_OFFSETS.replace("$name", f"_ta_{half}turn_offset").replace("$tasks", tasks))
    # a warehouse made before utc_offset_min, opened read-only (or another engine's copy) has none
    column = "utc_offset_min" if all(has_column(con, t, "utc_offset_min") for t in ("messages", "tasks")) else "NULL::INTEGER"
    con.execute(MESSAGE_OFFSETS.replace("$name", f"_ta_{half}message_offset").replace("$tasks", tasks)
                .replace("$replies", replies).replace("$column", column))


# the turn-model tables each half reads
ASKED_READS = ("write_steps",)
TOLD_READS = ("claimed_actions", "claim_fits")


class ValueRun:
    """One run's value checks in three steps on one connection: asked (each write against the
    user's request; it needs write_steps only, so it runs while the claim models are still being
    built), told (each claim's values against its writes, after claimed_actions), and finish (the
    verdicts of both, as value_checks)."""

    def __init__(self, plan) -> None:
        self.plan = plan
        self.version = reader_version(plan)
        self.new: list[tuple] = []  # one per result; (kind, k, None, ...) for a comparison with none
        self._cached: bool | None = None
        self._comparer: Comparer | None = None

    def _cache(self, con: duckdb.DuckDBPyConnection) -> bool:
        if self._cached is None:
            self._cached = has_table(con, "value_cache")
            if self._cached:
                con.execute("CREATE OR REPLACE TEMP TABLE _ta_known AS SELECT DISTINCT check_kind, k FROM value_cache "
                            "WHERE reader = $v", {"v": self.version})
            else:
                con.execute("CREATE OR REPLACE TEMP TABLE _ta_known (check_kind VARCHAR, k UBIGINT)")
        return self._cached

    def comparer(self) -> Comparer:  # built only when something is new: its patterns cost to compile
        if self._comparer is None:
            self._comparer = Comparer(self.plan.lexicon.data)
        return self._comparer

    def told(self, con: duckdb.DuckDBPyConnection) -> None:
        self._cache(con)
        _turn_offsets(con, "", TOLD_TASKS, TOLD_REPLIES)
        con.execute(TOLD)
        for k, vals, at, args, result, error, detail, tz, tz_source, turn_offset in con.execute(TOLD_INPUTS).fetchall():
            cmp = self.comparer()
            stored = stored_values(args, result, error, detail, cmp.patterns)
            rows = _compared(cmp, json.loads(vals), stored, at, tz, _said(tz, tz_source), turn_offset)
            self.new += [("told", k, *r) for r in rows] or [("told", k) + (None,) * 8]

    def asked(self, con: duckdb.DuckDBPyConnection) -> None:
        cached = self._cache(con)
        _requests(con, self.version, cached and has_table(con, "request_cache"), self.plan.lexicon.value_reader)
        con.execute(ASKED_WRITES)
        _turn_offsets(con, "asked_", ASKED_TASKS)
        con.execute(ASKED)
        for k, asks, at, args, tz, tz_source, turn_offset, text in con.execute(ASKED_INPUTS).fetchall():
            # a list's length is no answer to a request: the user may have asked for it across several calls
            stored = [x for x in stored_values(args, None, None, None, []) if not x.field.endswith("#len")]
            # a request's day and clock are one time only where one clause says both ("the 6pm HIIT class
            # tonight"); apart, the clock may be a bound (明早提醒我，我九点前起不来)
            wants, join = one_clause_time(text, json.loads(asks))
            rows = _compared(self.comparer(), wants, stored, at, tz, _said(tz, tz_source), turn_offset,
                             join_days=join)
            self.new += [("asked", k, *r) for r in rows] or [("asked", k) + (None,) * 8]

    def finish(self, con: duckdb.DuckDBPyConnection) -> pa.Table:
        """value_checks as a DuckDB temp table on `con`; returned for engines."""
        cached = self._cache(con)
        cols = list(zip(*self.new)) if self.new else [[] for _ in RESULT_COLUMNS]
        temp_table(con, "_ta_new_values", RESULT_COLUMNS, {n: list(c) for (n, _), c in zip(RESULT_COLUMNS, cols)})
        names = ", ".join(n for n, _ in RESULT_COLUMNS)
        kept = ""
        if cached:  # the kept results of this run's comparisons
            kept = (f"UNION ALL SELECT {', '.join('v.' + n for n, _ in RESULT_COLUMNS)} FROM value_cache v "
                    "JOIN (SELECT DISTINCT 'told' AS check_kind, k FROM _ta_told UNION "
                    "      SELECT DISTINCT 'asked', k FROM _ta_asked) c ON c.check_kind = v.check_kind AND c.k = v.k "
                    "WHERE v.reader = $v AND v.vi IS NOT NULL")
        con.execute(f"CREATE OR REPLACE TEMP TABLE _ta_results AS SELECT {names} FROM _ta_new_values "
                    f"WHERE vi IS NOT NULL {kept}", {"v": self.version} if cached else {})
        # a rules run keeps only what may be a finding (the replies and writes with a mismatch, all
        # their values); a turn's report (plan.value_matches) keeps the values that agreed too
        every = "TRUE" if getattr(self.plan, "value_matches", False) else "FALSE"
        table = con.sql(f"""
            {TOLD_VERDICTS}
            UNION ALL
            SELECT CAST(NULL AS VARCHAR), a.task_id, CAST(NULL AS INTEGER), a.seq, a.tool, a.check_kind, a.field,
                   a.value_type, a.told, a.written, a.stored, a.stored_from, a.verdict
            FROM ({ASKED_VERDICTS}) a""".replace("$all_values", every)).to_arrow_table()
        temp_table_of(con, "value_checks", table)
        return table


def value_checks(con: duckdb.DuckDBPyConnection, plan) -> pa.Table:
    """The three steps in one call (value_checks as a temp table on `con`, and returned)."""
    run = ValueRun(plan)
    run.told(con)
    run.asked(con)
    return run.finish(con)


def create_checks(con: duckdb.DuckDBPyConnection, plan) -> pa.Table:
    """value_checks as a DuckDB temp table on `con` (after the turn model); returned for engines."""
    return value_checks(con, plan)


def keep_values(con: duckdb.DuckDBPyConnection, version: str) -> None:
    """Store this run's new comparisons and request readings (inside the caller's transaction); drop
    other readers' rows and those of comparisons and requests no longer in the warehouse."""
    if not (has_table(con, "value_cache") and has_table(con, "_ta_new_values", temporary=True)):
        return
    con.execute("DELETE FROM value_cache WHERE reader <> $v OR NOT ((check_kind = 'told' AND k IN "
                "(SELECT k FROM _ta_told)) OR (check_kind = 'asked' AND k IN (SELECT k FROM _ta_asked)))",
                {"v": version})
    con.execute("INSERT INTO value_cache SELECT $v, * FROM _ta_new_values", {"v": version})
    con.execute("DELETE FROM request_cache WHERE reader <> $v OR text_key NOT IN (SELECT text_key FROM _ta_requests)",
                {"v": version})
    con.execute("INSERT INTO request_cache SELECT $v, CAST(text_key AS UHUGEINT), asks FROM _ta_new_requests",
                {"v": version})
