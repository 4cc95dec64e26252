"""One file's account: what was read from it, and whether all of it is in the warehouse.

The decoder counts the records it was handed (non-blank lines, array elements, documents,
spans quarantined by the framing, rows a binary reader decoded: `Decoded.records`). Each
record became rows or a quarantine entry. Before the file commits, `check` looks in the
warehouse itself, not at what the writing functions returned: every key decoded for a table is
there, in a row from the file that decoded it, and every quarantined record has its
`ingest_errors` row. Anything missing fails the file (rolled back whole, the run exits 70
naming it): ingest never reports success while records went unaccounted.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ...queries.warehouse.tables import KEYS
from ..read.base import Decoded, registered


class Unaccounted(Exception):
    """Records of a file are neither stored nor quarantined: a bug in trace-audit, not in the input."""


class Ledger:
    def __init__(self, shown: str, keep_keys: bool):
        self.shown = shown
        self.records = 0  # records the decoder was handed
        self.quarantined = 0  # of them, quarantined
        self.rows: dict[str, int] = {}  # rows decoded per table
        self.files: dict[str, set] = {}  # the source_file values of those rows, per table
        self.keep_keys = keep_keys  # False for staged files: their stage tables hold the keys
        self._keys: dict[str, list[pa.Table]] = {}

    def add(self, decoded: Decoded) -> None:
        self.records += decoded.records
        self.quarantined += len(decoded.errors)
        for table, rows in decoded.tables.items():
            self.rows[table] = self.rows.get(table, 0) + rows.num_rows
            files = self.files.setdefault(table, set())
            if "source_file" in rows.column_names:  # the file's name, stamped by the decoder (Parquet may differ)
                files.update(pc.unique(rows.column("source_file")).to_pylist())
            else:  # rows without the column are stored with NULL
                files.add(None)
            if self.keep_keys and table in KEYS:
                self._keys.setdefault(table, []).append(rows.select(list(KEYS[table])))

    def check(self, con, digest: str, stage=None) -> None:
        """Raise Unaccounted unless the warehouse holds everything this file decoded."""
        problems = []
        for table, decoded in sorted(self.rows.items()):
            if not decoded or table not in KEYS:
                continue
            if stage is not None:
                source = stage.name(table)
                staged = con.execute(f"SELECT count(*) FROM {source}").fetchall()[0][0]
                if staged != decoded:
                    problems.append(f"{decoded - staged:,} of {decoded:,} {table} rows decoded were not staged")
                missing = _missing(con, table, source, self.files[table])
            else:
                with registered(con, "ledger_keys", pa.concat_tables(self._keys[table])):
                    missing = _missing(con, table, "ledger_keys", self.files[table])
            if missing:
                problems.append(f"{missing:,} of {decoded:,} {table} rows decoded have no row in the table")
        stored = con.execute("SELECT count(*) FROM ingest_errors WHERE sha256 = ? AND source_file = ?",
                             [digest, self.shown]).fetchall()[0][0]
        if stored != self.quarantined:
            problems.append(f"{self.quarantined:,} records were quarantined and {stored:,} are in ingest_errors")
        if problems:
            raise Unaccounted(
                f"records went unaccounted ({'; '.join(problems)}; {self.records:,} records read). This is a "
                "bug in trace-audit, not in the file: please report it with this message")


def _missing(con, table: str, source: str, files: set) -> int:
    """Rows of `source` whose key has no row in `table` stored from a file that decoded them."""
    on = " AND ".join(f"s.{k} IS NOT DISTINCT FROM d.{k}" for k in KEYS[table])
    mine = f"SELECT {', '.join(KEYS[table])} FROM {table}"
    params: list = []
    if len(files) <= 1000:  # nearly always one: the file's own name
        named = sorted(f for f in files if f is not None)
        either = ([f"source_file IN ({', '.join('?' for _ in named)})"] if named else []) + \
            (["source_file IS NULL"] if None in files else [])
        mine += f" WHERE {' OR '.join(either)}"
        params = named
    return con.execute(f"SELECT count(*) FROM {source} d ANTI JOIN ({mine}) s ON {on}", params).fetchall()[0][0]
