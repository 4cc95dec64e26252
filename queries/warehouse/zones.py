"""The one time-zone system: which zone names trace-audit accepts.

The warehouse holds instants in UTC; a zone name says how naive times in the input are read
(`ingest --tz`) and how days and times are shown (`dashboard --tz`, `report --tz`). Ingest reads
naive times in DuckDB's session zone and the dashboard shows them with Python's `zoneinfo`, so a
name is accepted only when both know it: DuckDB's ICU knows aliases such as `AET` that `zoneinfo`
does not, and a name one side took and the other refused used to load some formats and
quarantine others. Every command and reader checks a name here, once.
"""

from __future__ import annotations

from functools import lru_cache

import duckdb

HINT = "use an IANA name such as UTC or Asia/Shanghai"


class UnknownZone(ValueError):
    """A zone name outside the one system; the message names the option it came from."""


@lru_cache(maxsize=1)
def known_zones() -> frozenset[str]:
    from zoneinfo import available_timezones

    con = duckdb.connect(":memory:")
    try:
        icu = {r[0] for r in con.execute("SELECT name FROM pg_timezone_names()").fetchall()}
    finally:
        con.close()
    return frozenset(available_timezones() & icu)


def check_zone(name: str, option: str | None = "--tz") -> str:
    """`name` if it is a zone of the one system, else UnknownZone naming `option`."""
    if name not in known_zones():
        where = f" for {option}" if option else ""
        raise UnknownZone(f"unknown time zone {name!r}{where}; {HINT}")
    return name
