"""What redaction replaced: counts per column and rule, for the ingest summary and the dry run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RedactionReport:
    """How many values were redacted, per column (`table.column`) and rule."""

    by_column: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Values redacted per rule, all columns together."""
        out: dict[str, int] = {}
        for rules in self.by_column.values():
            for rule, n in rules.items():
                out[rule] = out.get(rule, 0) + n
        return out

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def add(self, column: str, rule: str, n: int = 1) -> None:
        col = self.by_column.setdefault(column, {})
        col[rule] = col.get(rule, 0) + n

    def merge(self, other: "RedactionReport") -> "RedactionReport":
        for column, rules in other.by_column.items():
            for rule, n in rules.items():
                self.add(column, rule, n)
        return self

    def summary(self) -> str:
        """One line for the ingest summary: `redacted 12 values: 7 email, 3 phone_cn, 2 field:password`."""
        counts = self.counts
        if not counts:
            return "redacted nothing"
        parts = ", ".join(f"{n:,} {rule}" for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"redacted {self.total:,} values: {parts}"

    def table(self) -> str:
        """The dry-run listing: one line per column and rule, for tuning the rules."""
        if not self.by_column:
            return "nothing would be redacted"
        rows = [(c, r, n) for c, rules in sorted(self.by_column.items()) for r, n in sorted(rules.items())]
        width = max(len(c) for c, _r, _n in rows)
        rwidth = max(len(r) for _c, r, _n in rows)
        lines = [f"{'column':<{width}}  {'rule':<{rwidth}}  {'values':>8}"]
        lines += [f"{c:<{width}}  {r:<{rwidth}}  {n:>8,}" for c, r, n in rows]
        lines.append(self.summary())
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "by_rule": dict(sorted(self.counts.items())),
                "by_column": {c: dict(sorted(r.items())) for c, r in sorted(self.by_column.items())}}
