"""`$name` placeholders in SQL: the one scanner for rules, dashboard queries and transpile.

A placeholder counts only outside comments and string literals: a `$name` a comment mentions
is not a parameter the SQL takes (DuckDB rejects a bound name the statement does not use, and a
rule's header would have to declare it).
"""

from __future__ import annotations

import re
from typing import Iterator

PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def strip_sql_noise(text: str) -> str:
    """The SQL with comments and string literals blanked (same length, same lines)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "-" and text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in ("'", '"'):
            j = i + 1
            while j < n:
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            j = min(j + 1, n)
            out.append(c + "".join(ch if ch == "\n" else " " for ch in text[i + 1:j - 1]) + (c if j - 1 > i else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def param_uses(sql: str) -> dict[str, int]:
    """Each `$name` used in the SQL (outside comments and strings) -> first line number (1-based)."""
    clean = strip_sql_noise(sql)
    found: dict[str, int] = {}
    for m in PARAM.finditer(clean):
        found.setdefault(m.group(1), clean.count("\n", 0, m.start()) + 1)
    return found


def placeholders(sql: str) -> Iterator[re.Match]:
    """Each `$name` of the SQL outside comments and strings, as a match over the SQL's own text
    (same positions: group(1) is the name)."""
    return PARAM.finditer(strip_sql_noise(sql))


def param_names(sql: str) -> list[str]:
    """The parameter names the SQL uses, in order of first use."""
    return list(dict.fromkeys(m.group(1) for m in placeholders(sql)))

