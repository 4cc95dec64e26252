"""The redactor over Arrow tables: the loader hands every decoded batch through it before its upsert.

The regular expressions run vectorised over whole Arrow columns (pyarrow.compute, RE2) as a cheap
superset test ("prefilter"); only the rows it flags reach Python, where the precise pattern, the
Luhn check and the JSON walk run. Over JSON columns the prefilters run on the stored text itself,
in a form rewritten once to accept JSON escapes (escape_tolerant.py). Ids, tool names, statuses,
verified, attempts and timestamps are never touched (columns.py lists what is).
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import lru_cache
from typing import Callable

import pyarrow as pa
import pyarrow.compute as pc

from .columns import JSON_COLUMNS, TEXT_COLUMNS, USER_ID_COLUMNS
from .config import RedactionConfig
from .json_text import JsonRedactor
from .key import resolve_key
from .prefilter_syntax import ESCAPED_ASCII
from .report import RedactionReport
from .text import HitCounter


class Redactor(JsonRedactor):
    """Build one per ingest run and reuse it for every batch."""

    @classmethod
    def for_database(cls, config: RedactionConfig, db_path: str | os.PathLike | None, con=None) -> "Redactor | None":
        """The redactor the loader uses for the warehouse at `db_path`; None when redaction is off.

        Given only an open connection (`con`), the key file goes next to that
        connection's database file, wherever it is.
        """
        if not config.enabled:
            return None
        if db_path is None and con is not None:
            row = con.execute(
                "SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
            db_path = (row[0][0] if row else None) or ":memory:"
        return cls(config, resolve_key(config, db_path))

    # --- Arrow ----------------------------------------------------------------------

    def redact_tables(self, tables: dict[str, pa.Table], *, apply: bool = True
                      ) -> tuple[dict[str, pa.Table], RedactionReport]:
        """Redact decoded warehouse tables. With apply=False only count (the dry run)."""
        report = RedactionReport()
        out = {}
        for name, table in tables.items():
            out[name] = self._redact_table(name, table, report, apply)
        return (out if apply else dict(tables)), report

    def _redact_table(self, name: str, table: pa.Table, report: RedactionReport, apply: bool) -> pa.Table:
        cols = table.column_names
        for col in TEXT_COLUMNS.get(name, ()):
            if col in cols:
                table = self._column(table, name, col, self.redact_text, report, apply)
        for col in JSON_COLUMNS.get(name, ()):
            if col in cols:
                table = self._column(table, name, col, self.redact_json_text, report, apply, json_text=True)
        for col in USER_ID_COLUMNS.get(name, ()):
            if col not in cols:
                continue
            if self.config.pseudonymise_user_id:
                table = self._pseudonymise(table, name, col, report, apply)
            else:
                # Kept as is, except that a user id which is itself an email or a
                # phone number gets the same token it gets in text (joins hold).
                table = self._column(table, name, col, self.redact_text, report, apply)
        return table

    def _gates(self, json_text: bool) -> tuple[str, list[str], bool]:
        """(the column's prefilter, each rule's, whether they read an unescaped view of the text)."""
        rules = self.rules
        if not json_text:
            return rules.text_prefilter, [r.prefilter for r in rules.rules], False
        if rules.json_raw_prefilter is not None:
            # The escape-tolerant forms read the JSON text as it is: no unescaped copy.
            return rules.json_raw_prefilter, [r.json_raw_prefilter for r in rules.rules], False
        return rules.json_prefilter, [r.prefilter for r in rules.rules], True

    def _column(self, table: pa.Table, tname: str, col: str, fn: Callable[[str, HitCounter], str],
                report: RedactionReport, apply: bool, json_text: bool = False) -> pa.Table:
        arr, wrap = _as_strings(table.column(col))
        if arr is None or len(arr) == arr.null_count:
            return table
        rules = self.rules.rules
        prefilter, rule_filters, unescape = self._gates(json_text)
        view = _unescaped_view(arr) if unescape else arr
        mask = pc.fill_null(pc.match_substring_regex(view, prefilter), False)
        if not pc.any(mask).as_py():
            return table
        idx = pc.indices_nonzero(mask)
        old = pc.take(arr, idx).to_pylist()
        candidates = pc.take(view, idx)
        # Which rules can match in which candidate row: one vectorised RE2 pass per rule,
        # packed into one integer per row (bit j = rule j may match).
        bits = pa.scalar(0, pa.int64())
        for j, rule_filter in enumerate(rule_filters):
            hit = pc.fill_null(pc.match_substring_regex(candidates, rule_filter), False)
            bits = pc.add(bits, pc.multiply(pc.cast(hit, pa.int64()), 1 << j))
        if json_text:
            # \u-escaped ASCII can spell anything in a way no prefilter sees: all rules for those rows.
            escaped = pc.fill_null(pc.match_substring_regex(candidates, ESCAPED_ASCII), False)
            bits = pc.if_else(escaped, (1 << len(rules)) - 1, bits)
        row_bits = bits.to_pylist() if isinstance(bits, pa.Array) else [bits.as_py()] * len(old)
        new = []
        cache: dict[int, HitCounter] = {}
        for v, key in zip(old, row_bits):
            counter = cache.get(key)
            if counter is None:
                active = tuple(r for j, r in enumerate(rules) if key >> j & 1)
                counter = cache[key] = HitCounter(report, f"{tname}.{col}", active)
            new.append(fn(v, counter))
        if not apply or new == old:
            return table
        replaced = pc.replace_with_mask(arr, mask, pa.array(new, type=arr.type))
        return table.set_column(table.column_names.index(col), table.schema.field(col), wrap(replaced))

    def _pseudonymise(self, table: pa.Table, tname: str, col: str, report: RedactionReport, apply: bool) -> pa.Table:
        arr, wrap = _as_strings(table.column(col))
        if arr is None or len(arr) == arr.null_count:
            return table
        distinct = pc.unique(arr).drop_null()
        tokens = pa.array([self.pseudonym(v) for v in distinct.to_pylist()], arr.type)
        mapped = pc.take(tokens, pc.index_in(arr, distinct))
        changed = pc.sum(pc.cast(pc.fill_null(pc.not_equal(arr, mapped), False), pa.int64())).as_py() or 0
        if changed:
            report.add(f"{tname}.{col}", "user_id", changed)
        if not apply:
            return table
        return table.set_column(table.column_names.index(col), table.schema.field(col), wrap(mapped))

    # --- the loader's entry point ------------------------------------------------------

    def redact_decoded(self, decoded):
        """(Decoded with tables and quarantined records redacted, RedactionReport).

        A quarantined record's reason is redacted as well as its raw text: a reason may quote
        the value it could not read (`cannot read 'alice@x.org' as a time`), and both are
        stored and printed (`ingest`, `stats --errors`).
        """
        tables, report = self.redact_tables(decoded.tables)
        if not decoded.errors:
            return replace(decoded, tables=tables), report
        raws = self.redact_texts([e[1] for e in decoded.errors], "ingest_errors.raw", report)
        reasons = self.redact_texts([e[2] for e in decoded.errors], "ingest_errors.reason", report)
        errors = [(line, raw, reason) for (line, _r, _w), raw, reason in zip(decoded.errors, raws, reasons)]
        return replace(decoded, tables=tables, errors=errors), report


def _unescaped_view(arr: pa.Array) -> pa.Array:
    r"""JSON text with its common escapes undone, for the prefilters only.

    A string value such as `Bearer<TAB>abc` or `https://x/cb?token=...` may be
    escaped in the JSON text (`Bearer\tabc`, `https:\/\/x`, at every nesting
    level), while the precise patterns see the decoded string. Undo \n \t \r
    \b \f (to a space), \/ and \" so a prefilter never misses what the decoded
    value holds. \uXXXX escapes of ASCII are caught by the JSON prefilter itself.

    Only used when some prefilter has no escape-tolerant form (`escape_tolerant`),
    which reads the raw text instead at a fifth of the cost.
    """
    if not pc.any(pc.match_substring(arr, "\\")).as_py():
        return arr
    arr = pc.replace_substring_regex(arr, r'\\+[nrtbf]', " ")
    return pc.replace_substring_regex(arr, r'\\+([/"])', r"\1")


def _as_strings(col: pa.ChunkedArray) -> tuple[pa.Array | None, Callable[[pa.Array], pa.Array]]:
    """A string array for the regex kernels and how to give back the column's own type."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if isinstance(arr.type, pa.ExtensionType):
        ext = arr.type
        return arr.storage, lambda a: pa.ExtensionArray.from_storage(ext, a)
    if pa.types.is_null(arr.type):
        return None, lambda a: a
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None, lambda a: a
    return arr, lambda a: a


@lru_cache(maxsize=8)
def _cached_redactor(config: RedactionConfig, key: bytes) -> Redactor:
    return Redactor(config, key)


def redact_tables(tables: dict[str, pa.Table], config: RedactionConfig, key: bytes
                  ) -> tuple[dict[str, pa.Table], RedactionReport]:
    """Redacted copies of `tables` and what was redacted. Disabled config: tables unchanged."""
    if not config.enabled:
        return tables, RedactionReport()
    return _cached_redactor(config, key).redact_tables(tables)


def redaction_report(tables: dict[str, pa.Table], config: RedactionConfig, key: bytes) -> RedactionReport:
    """The dry run: what `redact_tables` would redact, nothing changed (counts are identical)."""
    return _cached_redactor(config, key).redact_tables(tables, apply=False)[1]


def redact_decoded(decoded, redactor: Redactor | None, report: RedactionReport):
    """The loader's one call: `decoded = redact_decoded(decoded, redactor, result.redaction)`.

    Returns the Decoded with its tables and quarantined raws redacted (unchanged
    when `redactor` is None, i.e. redaction is off) and adds the counts to `report`.
    """
    if redactor is None:
        return decoded
    out, got = redactor.redact_decoded(decoded)
    report.merge(got)
    return out
