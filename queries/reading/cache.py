"""Readings kept between rule runs: each distinct reply text is read once per reader.

Real assistants rarely say the same thing twice, so a run that read every reply of history
would grow with history, not with what is new. The rules run keeps what the reader made of
each text in the warehouse (reading_cache, reading_cache_items; written with the run's
findings, in its transaction) under a `reader` version: a digest of the lexicon as configured
and of the reading code. A run reads only the texts its reader has not read before; a changed
lexicon or reader starts afresh; when a run stores, the rows of other readers and of texts no
longer in the warehouse are dropped.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb

from .rows import temp_table_of

# Every distinct reply text: assistant messages and task final answers with any non-blank character.
TEXTS = """
SELECT DISTINCT content FROM messages
WHERE role = 'assistant' AND content IS NOT NULL AND regexp_matches(content, '\\S')
UNION
SELECT DISTINCT final_answer FROM tasks WHERE final_answer IS NOT NULL AND regexp_matches(final_answer, '\\S')
"""
READING_FIELDS = ("is_claim", "admits_failure", "verdict", "clauses")
ITEM_FIELDS = ("clause_no", "action", "object", "object_re", "follows", "follows_object", "backs", "clause", "vals", "noun")
_CODE = Path(__file__).resolve().parent


def reader_version(plan) -> str:
    """The lexicon as configured and the source of the reading code: what a reading depends on."""
    h = hashlib.sha256(plan.lexicon.digest.encode())
    for path in sorted(_CODE.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:24]


def has_table(con: duckdb.DuckDBPyConnection, name: str, temporary: bool = False) -> bool:
    """Whether `name` exists: a warehouse made before the cache and opened read-only has none."""
    return con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary = $t AND table_name = $n AND "
                       "(temporary OR (schema_name = 'main' AND database_name = current_database()))",
                       {"t": temporary, "n": name}).fetchall()[0][0] > 0


def has_column(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """Whether the warehouse's `table` has `column`: one made before it and opened read-only has not."""
    return con.execute("SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'main' AND "
                       "database_name = current_database() AND table_name = $t AND column_name = $c",
                       {"t": table, "c": column}).fetchall()[0][0] > 0


def create_readings(con: duckdb.DuckDBPyConnection, plan) -> None:
    """reply_readings and claim_items as temp tables on `con`: the kept readings of this reader,
    and the texts it has not read yet read now (left in _ta_new_readings / _ta_new_items for
    keep_readings to store)."""
    from .tables import CLAIM_COLUMNS, READING_COLUMNS, read_texts

    version = reader_version(plan)
    cached = has_table(con, "reading_cache")
    con.execute(f"CREATE OR REPLACE TEMP TABLE _ta_texts AS SELECT (row_number() OVER () - 1)::INTEGER AS text_id, "
                f"md5_number(t) AS text_key, t AS reply_text FROM ({TEXTS}) x(t)")
    known = ("SELECT text_key FROM reading_cache WHERE reader = $v" if cached
             else "SELECT NULL::UHUGEINT AS text_key WHERE FALSE")
    missing = con.execute(f"SELECT text_key, reply_text FROM _ta_texts WHERE text_key NOT IN ({known}) "
                          "ORDER BY text_id", {"v": version} if cached else {}).fetchall()
    con.execute("CREATE OR REPLACE TEMP TABLE _ta_new_keys (text_id INTEGER, text_key UHUGEINT)")
    types = dict(READING_COLUMNS + CLAIM_COLUMNS)
    new = read_texts([t for _, t in missing], plan) if missing else None  # none new: no reader built
    if missing:
        con.execute("INSERT INTO _ta_new_keys SELECT (generate_subscripts($k, 1) - 1)::INTEGER, "
                    "unnest($k)::UHUGEINT", {"k": [str(k) for k, _ in missing]})
    for name, table, fields in (("_ta_new_readings", "reply_readings", READING_FIELDS),
                                ("_ta_new_items", "claim_items", ITEM_FIELDS)):
        if new is None:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {name} (text_key UHUGEINT, "
                        + ", ".join(f"{f} {types[f]}" for f in fields) + ")")
        else:
            temp_table_of(con, name, new[table], f"SELECT k.text_key, {', '.join('x.' + f for f in fields)} "
                                                 "FROM _ta_rows x JOIN _ta_new_keys k ON k.text_id = x.text_id")
    kept = "UNION ALL SELECT text_key, {cols} FROM {table} WHERE reader = $v" if cached else ""
    params = {"v": version} if cached else {}
    con.execute(f"""CREATE OR REPLACE TEMP TABLE reply_readings AS
        SELECT t.reply_text, t.text_id, r.is_claim, r.admits_failure, r.verdict, r.clauses
        FROM _ta_texts t JOIN (SELECT text_key, {', '.join(READING_FIELDS)} FROM _ta_new_readings
                               {kept.format(cols=', '.join(READING_FIELDS), table='reading_cache')}) r
             ON r.text_key = t.text_key""", params)
    con.execute(f"""CREATE OR REPLACE TEMP TABLE claim_items AS
        SELECT t.text_id, {', '.join('i.' + f for f in ITEM_FIELDS)}
        FROM _ta_texts t JOIN (SELECT text_key, {', '.join(ITEM_FIELDS)} FROM _ta_new_items
                               {kept.format(cols=', '.join(ITEM_FIELDS), table='reading_cache_items')}) i
             ON i.text_key = t.text_key""", params)


def keep_readings(con: duckdb.DuckDBPyConnection, plan) -> None:
    """Store the readings and comparisons this run made (inside the caller's transaction)."""
    from .value_run import keep_values

    version = reader_version(plan)
    if has_table(con, "reading_cache") and has_table(con, "_ta_new_readings", temporary=True):
        # Other readers' rows, and those of texts no longer in the warehouse (a reply re-sent redacted
        # must not live on here in its first form): the run listed every reply text there is.
        for table in ("reading_cache", "reading_cache_items"):
            con.execute(f"DELETE FROM {table} WHERE reader <> $v OR text_key NOT IN (SELECT text_key FROM _ta_texts)",
                        {"v": version})
        con.execute(f"INSERT INTO reading_cache SELECT $v, text_key, {', '.join(READING_FIELDS)} "
                    "FROM _ta_new_readings", {"v": version})
        con.execute(f"INSERT INTO reading_cache_items SELECT $v, text_key, {', '.join(ITEM_FIELDS)} "
                    "FROM _ta_new_items", {"v": version})
    keep_values(con, version)
