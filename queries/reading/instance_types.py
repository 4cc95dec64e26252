"""(fixk) A cloud instance type told or asked ("spin up a t3.large", 规格升到 c6.2xlarge, db.r6g.xlarge): a
family (letters and a generation digit, c6, r6g, t3), a dot and a size of `[ids.instance_types] sizes` (large,
2xlarge, metal), read as an id of kind instance_type (value_fits.MoreFits compares it). Read as one token it
is no size choice ("large") and no id of another kind; a provider's prefix (db., ecs.) is not the type's.
"""

from __future__ import annotations

import re


class InstanceTypes:
    """Reads a cloud instance type (t3.large, c6.2xlarge, db.r6g.xlarge) as an id of kind instance_type."""

    def __init__(self, values: dict):
        sizes = values.get("ids", {}).get("instance_types", {}).get("sizes", [])
        self.re = re.compile(
            r"(?<![\w.-])(?:[a-z]{2,4}\.)?(?P<code>[a-z]{1,3}\d[a-z0-9-]*\.(?:\d{0,2}(?:" + "|".join(map(re.escape, sizes))
            + r")))(?![\w.])") if sizes else None

    def add(self, low: str, text: str, kept: list) -> None:
        if self.re is None or "." not in low:
            return
        for m in self.re.finditer(low):
            s, e = m.start("code"), m.end("code")
            kept[:] = [k for k in kept if not (k[0] < m.end() and m.start() < k[1])]
            kept.append((s, e, {"type": "id", "text": text[s:e], "role": None, "value": low[s:e], "kind": "instance_type"}))
        kept.sort(key=lambda k: (k[0], k[1]))
