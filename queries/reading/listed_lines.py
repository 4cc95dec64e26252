"""The things a counted headline lists line by line, each a claim of its own.

"Both booked! 🍝\\n1. **Carbone** — Fri Dec 4, 8:00 PM\\n2. **Via Carota** — Sat Dec 5, 7:30 PM",
"Added both to your calendar:\\n- Dentist — Thu 3 Dec\\n- Parents' evening — Tue 8 Dec",
已为你设置两个提醒：\\n⏰ 明早 8:00 吃药\\n⏰ 明晚 21:00 吃药: a headline that counts its things (`[clause.counted]`)
and ends its line is followed by as many lines, each one thing it did. A line is cut into clauses at its
dashes and commas, so the reader's list after a colon (one sentence) does not see it; here each line is one
claim of the headline's action, which a write must back on its own. Only plain lines count (no claim, denial or
question of their own, a to-do's own verb aside: "- renew passport"; no label line such as "Check-in: Dec 3", which tells a field of one record; no sentence closed by a
full stop or an exclamation, "See you there."), and only as many as the headline counts, right after it:
fewer such lines list nothing.
"""

from __future__ import annotations

from .clauses import ClauseReading, Reader, Reading


def listed_lines(reader: Reader, r: Reading) -> dict[int, ClauseReading | None]:
    """Clause index -> the claim its line makes (at the line's first clause), or None (the line's other
    clauses, read with the first)."""
    out: dict[int, ClauseReading | None] = {}
    for h in r.standing:
        head = r.clauses[h]
        if head.action is None or h + 1 >= len(r.clauses) or r.segments[h + 1].sentence == r.segments[h].sentence:
            continue  # a headline that ends its line
        counted = reader._counted(r.segments[h].text)
        if counted < 2:
            continue
        lines: list[list[int]] = []
        k = h + 1
        while k < len(r.clauses) and len(lines) < counted:
            line = [j for j in range(k, len(r.clauses)) if r.segments[j].sentence == r.segments[k].sentence]
            if any(r.clauses[j].kind != "other" for j in line) or (
                    len(line) > 1 and r.segments[line[0]].closer in (":", "：")) or (
                    r.segments[line[-1]].closer.strip() not in ("", ";", "；", ",", "，")):
                break
            lines.append(line)
            k = line[-1] + 1
        if len(lines) < counted:
            continue
        for line in lines:
            text = ", ".join(r.clauses[j].text for j in line)
            out[line[0]] = ClauseReading(text, "completion", head.action, reader._object(text) or head.object)
            out.update({j: None for j in line[1:]})
    return out
