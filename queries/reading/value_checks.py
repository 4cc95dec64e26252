"""Each value a reply told the user, or a user asked for, against what the write stored.

value_checks: one row per compared value (issue 15, the third kind of false success):
- check 'told': a claimed action's clause states a value (claimed_actions.vals); it is
  compared with the stored values of the write that backs that claim
  (queries/reading/stored_values.py: read-back over returned record over args);
- check 'asked': the user's request (the last user message before the write, else the
  task's goal) states a value; it is compared with the write's arguments only.
A value is compared only with stored fields of its own kind (a time with time fields,
a cabin class with fields holding a cabin class, a count of bags with fields that
name bags, a quotation with text fields); with none, nothing is said. verdict is
'match' or 'mismatch'; rules read the mismatches, the views show them all.

It runs after the turn model, on DuckDB (engines get the result as data), and only
over the few writes that back a claim stating a value, not over every step.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import duckdb
import pyarrow as pa

from .objects import ObjectGroups
from .stored_values import Stored, as_wall_clocks, stored_values
from .tools import words

DEPENDS = ("claimed_actions", "write_steps")  # the turn-model tables it reads
CHECK_COLUMNS = [("reply_id", "VARCHAR"), ("task_id", "VARCHAR"), ("seq", "INTEGER"), ("tool", "VARCHAR"),
                 ("check_kind", "VARCHAR"), ("field", "VARCHAR"), ("value_type", "VARCHAR"), ("told", "VARCHAR"),
                 ("written", "VARCHAR"), ("stored", "VARCHAR"), ("stored_from", "VARCHAR"), ("verdict", "VARCHAR")]
# A field is of a kind by the last word of its key: `total_price` is an amount, `total_baggages` is not.
_AMOUNT_WORDS = {"amount", "price", "total", "cost", "paid", "fee", "charge", "refund", "balance", "sum"}
_TEXT_WORDS = {"content", "title", "name", "text", "note", "summary", "subject", "message", "description", "body",
               "label", "memo"}
# when the record was written, not a value of it
_RECORD_TIMES = {"created_at", "updated_at", "modified_at", "inserted_at", "deleted_at", "create_time", "update_time",
                 "modify_time", "timestamp", "created", "updated", "modified", "last_modified", "ts"}

# Inputs are grouped (k) so each distinct (values, write, hour, zone) is compared once: templated
# assistants repeat the same reply over the same kind of write thousands of times.
_TOLD = """
CREATE OR REPLACE TEMP TABLE _ta_told AS
SELECT dense_rank() OVER (ORDER BY ca.vals, CAST(s.args AS VARCHAR), CAST(s.result AS VARCHAR), s.error, s.detail,
                                   strftime(ca.reply_time, '%Y-%m-%d %H'), f.tz) AS k,
       ca.reply_id, ca.task_id, s.seq, s.tool, ca.vals, strftime(ca.reply_time, '%Y-%m-%dT%H:%M:%S+00:00') AS said_at,
       CAST(s.args AS VARCHAR) AS args, CAST(s.result AS VARCHAR) AS result, s.error, s.detail, f.tz, f.tz_source
FROM claimed_actions ca
JOIN steps s ON s.task_id = ca.task_id AND s.seq = ca.backing_seq
LEFT JOIN tasks t ON t.task_id = ca.task_id
LEFT JOIN (SELECT path, max(tz) AS tz, max(tz_source) AS tz_source FROM ingest_files GROUP BY path) f
       ON f.path = t.source_file
WHERE ca.vals IS NOT NULL
"""

# the user's request for each write: the last user message before it (by position where the
# source records one), else the task's goal; only requests that state a value (_ta_asks_with)
_ASKED = """
CREATE OR REPLACE TEMP TABLE _ta_asked AS
WITH asks AS (
    SELECT task_id, seq, content, created_at FROM (
        SELECT w.task_id, w.seq, m.content, m.created_at,
               row_number() OVER (PARTITION BY w.task_id, w.seq
                                  ORDER BY TRY_CAST(json_extract_string(m.metadata, '$.message_index') AS INTEGER) DESC NULLS LAST,
                                           m.created_at DESC NULLS LAST, m.message_id DESC) AS rn
        FROM write_steps w
        JOIN messages m ON m.task_id = w.task_id AND m.role = 'user' AND m.content IS NOT NULL
        WHERE w.msg_index IS NULL
           OR TRY_CAST(json_extract_string(m.metadata, '$.message_index') AS INTEGER) < w.msg_index) x
    WHERE rn = 1
),
req AS (
    SELECT w.task_id, w.seq, w.tool, coalesce(a.content, t.goal) AS asked,
           coalesce(a.created_at, t.started_at) AS said_at, CAST(s.args AS VARCHAR) AS args, t.source_file
    FROM write_steps w
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
    LEFT JOIN asks a ON a.task_id = w.task_id AND a.seq = w.seq
    LEFT JOIN tasks t ON t.task_id = w.task_id
    WHERE s.args IS NOT NULL
)
SELECT dense_rank() OVER (ORDER BY r.asked, r.args, strftime(r.said_at, '%Y-%m-%d %H'), f.tz) AS k,
       r.task_id, r.seq, r.tool, r.asked, strftime(r.said_at, '%Y-%m-%dT%H:%M:%S+00:00') AS said_at, r.args, f.tz,
       f.tz_source
FROM req r
JOIN _ta_asks_with q ON q.asked = r.asked
LEFT JOIN (SELECT path, max(tz) AS tz, max(tz_source) AS tz_source FROM ingest_files GROUP BY path) f
       ON f.path = r.source_file
"""
_REQUESTS = """
SELECT DISTINCT content FROM messages WHERE role = 'user' AND content IS NOT NULL
UNION SELECT DISTINCT goal FROM tasks WHERE goal IS NOT NULL
"""


class Comparer:
    def __init__(self, lex: dict):
        values = lex.get("values", {})
        self.enums: dict[str, dict[str, str]] = {}
        # bare words that are also ordinary adjectives ("the new economy flights"): a value stated only
        # by one of these is not compared ([enums.*] ambiguous in values.toml)
        self.ambiguous = {name: {_norm(w) for w in spec.get("ambiguous", [])}
                          for name, spec in values.get("enums", {}).items()}
        for name, spec in values.get("enums", {}).items():
            names = {}
            for member, aliases in spec.get("members", {}).items():
                for a in [member, member.replace("_", " "), *aliases]:
                    names.setdefault(_norm(a), member)
            self.enums[name] = names
        self.groups = ObjectGroups(lex)
        self.patterns = [re.compile(p) for p in lex.get("readback", {}).get("patterns", [])]

    def compare(self, told: dict, stored: list[Stored], at: datetime | None, zone: str | None):
        """(field, stored value, source, written, verdict) for one told value, or None when no stored
        field is of the value's kind."""
        kind = told.get("type")
        fits = []
        for s in stored:
            hit = self._fits(kind, told, s, at, zone)
            if hit is not None:
                fits.append((s, hit))
        if not fits:
            return None
        good = [s for s, ok in fits if ok]
        s = good[0] if good else next((s for s, _ in fits if s.source == "readback"), fits[0][0])
        return s.field, s.value, s.source, s.written, "match" if good else "mismatch"

    def _fits(self, kind, told, s: Stored, at, zone) -> bool | None:
        """None: the stored field is not of the told value's kind; else whether they agree."""
        v = s.value
        if "." in s.field:
            return None  # a nested field describes another thing (a list's items, a flight), not the write's own
        last = (words(s.field) or [""])[-1]
        if kind == "time":
            if s.field.lower() in _RECORD_TIMES:
                return None
            return _time_agrees(told, as_wall_clocks(v, zone), at)
        if kind == "choice":
            if _norm(told.get("text") or "") in self.ambiguous.get(told.get("enum"), ()):
                return None
            member = self.enums.get(told.get("enum"), {}).get(_norm(v)) if isinstance(v, str) else None
            return None if member is None else member == told.get("value")
        if kind == "amount":
            if isinstance(v, bool) or not isinstance(v, (int, float)) or last not in _AMOUNT_WORDS:
                return None
            return abs(float(v) - float(told.get("value") or 0)) < 0.01
        if kind == "count":
            obj = told.get("object")
            key_groups = self.groups.of_tool_words(words(s.field.replace("#len", "")))
            if obj is None or self.groups.of_word(obj) not in key_groups:
                return None
            if isinstance(v, bool) or not isinstance(v, int):
                return None
            return v == told.get("value")
        if kind == "quote":
            if not isinstance(v, str) or last not in _TEXT_WORDS:
                return None
            a, b = _norm(told.get("value") or ""), _norm(v)
            return bool(a) and (a in b or b in a)
        return None


def _norm(text) -> str:
    return re.sub(r"[\s_\-]+", " ", str(text)).strip().lower()


def _time_agrees(told: dict, clocks: list, at: datetime | None) -> bool | None:
    """Whether a told time agrees with any reading of a stored one; None when they cannot be
    compared (a date-only field for a clock time, nothing to resolve a day against)."""
    hour, minute = told.get("hour"), told.get("minute") or 0
    judged, agree = False, False
    for date, h, m, tz in clocks:
        # a relative day ("tomorrow") is resolved in the zone the stored value is read in
        day = _told_date(told, at.astimezone(tz) if (at is not None and tz is not None) else at)
        if hour is None and day is None:
            continue
        if hour is not None and h < 0:
            continue  # a date-only field says nothing of a clock time
        ok = True
        if hour is not None:
            ok = (h, m) == (hour, minute) or bool(told.get("ambiguous_12h") and (h % 12, m) == (hour % 12, minute))
        if ok and day is not None and date is not None:
            ok = date == day if len(day) == 10 else date[5:] == day
        judged, agree = True, agree or ok
    return agree if judged else None


def _told_date(told: dict, at: datetime | None) -> str | None:
    if told.get("date"):
        return told["date"]
    if told.get("day_offset") is not None and at is not None:
        return (at + timedelta(days=told["day_offset"])).strftime("%Y-%m-%d")
    return None


def _local(at: str | None, zone: str | None) -> datetime | None:
    if not at:
        return None
    try:
        t = datetime.fromisoformat(at)
        return t.astimezone(ZoneInfo(zone)) if zone and t.tzinfo else t
    except (ValueError, KeyError, OSError):
        return None


def _text(v) -> str | None:
    return None if v is None else (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))


def _said(tz_source: str | None) -> bool:
    """Whether somebody named the file's zone (else UTC was assumed and the user's zone is unknown)."""
    return bool(tz_source) and not tz_source.startswith("default")


def _compared(cmp: Comparer, wants: list[dict], stored: list[Stored], at, tz, zone_known: bool = True) -> list[tuple]:
    out = []
    when = _local(at, tz or "UTC")
    for want in wants:
        if want.get("role") == "from":
            continue
        # a stored time with an offset is read in the user's zone; with no zone named, it is not judged
        hit = cmp.compare(want, stored, when, (tz or "UTC") if zone_known else None)
        if hit:
            field, value, source, written, verdict = hit
            out.append((field, want["type"], want.get("text"), _text(written), _text(value), source, verdict))
    return out


def value_checks(con: duckdb.DuckDBPyConnection, plan) -> pa.Table:
    cmp = Comparer(plan.lexicon.data)
    reader = plan.lexicon.value_reader()
    results: list[tuple] = []  # (check, k, field, value_type, told, written, stored, stored_from, verdict)
    con.execute(_TOLD)
    for k, vals, at, args, result, error, detail, tz, tz_source in con.execute(
            "SELECT k, any_value(vals), any_value(said_at), any_value(args), any_value(result), any_value(error), "
            "any_value(detail), any_value(tz), any_value(tz_source) FROM _ta_told GROUP BY k").fetchall():
        stored = stored_values(args, result, error, detail, cmp.patterns)
        results += [("told", k, *r) for r in _compared(cmp, json.loads(vals), stored, at, tz, _said(tz_source))]
    asks = {}
    for (text,) in con.execute(_REQUESTS).fetchall():
        found = [v for v in reader.extract(text) if v.get("type") in ("time", "choice")]
        if found:
            asks[text] = found
    con.register("_ta_asks_in", pa.table({"asked": pa.array(list(asks), pa.string())}))
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE _ta_asks_with AS SELECT * FROM _ta_asks_in")
    finally:
        con.unregister("_ta_asks_in")
    con.execute(_ASKED)
    for k, asked, at, args, tz, tz_source in con.execute(
            "SELECT k, any_value(asked), any_value(said_at), any_value(args), any_value(tz), any_value(tz_source) "
            "FROM _ta_asked GROUP BY k").fetchall():
        results += [("asked", k, *r) for r in _compared(cmp, asks[asked], stored_values(args, None, None, None, []),
                                                        at, tz, _said(tz_source))]
    names = ["check_kind", "k", "field", "value_type", "told", "written", "stored", "stored_from", "verdict"]
    cols = list(zip(*results)) if results else [[] for _ in names]
    con.register("_ta_results", pa.table({n: pa.array(list(c), pa.int64() if n == "k" else pa.string())
                                          for n, c in zip(names, cols)}))
    try:
        return con.sql("""
            SELECT o.reply_id, o.task_id, o.seq, o.tool, r.check_kind, r.field, r.value_type, r.told, r.written,
                   r.stored, r.stored_from, r.verdict
            FROM _ta_results r JOIN _ta_told o ON o.k = r.k WHERE r.check_kind = 'told'
            UNION ALL
            SELECT CAST(NULL AS VARCHAR), o.task_id, o.seq, o.tool, r.check_kind, r.field, r.value_type, r.told,
                   r.written, r.stored, r.stored_from, r.verdict
            FROM _ta_results r JOIN _ta_asked o ON o.k = r.k WHERE r.check_kind = 'asked'
            ORDER BY 2, 3, 1 NULLS LAST, 6""").to_arrow_table()
    finally:
        con.unregister("_ta_results")


def create_checks(con: duckdb.DuckDBPyConnection, plan) -> pa.Table:
    """value_checks as a DuckDB temp table on `con` (after the turn model); returned for engines."""
    table = value_checks(con, plan)
    con.register("_ta_checks", table)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE value_checks AS SELECT * FROM _ta_checks")
    finally:
        con.unregister("_ta_checks")
    return table
