"""What a write stored, field by field: its arguments, the record it returned, its read-back.

The values a reply states are compared with these (queries/reading/value_checks.py).
A field's stored value is the best evidence there is of what the database holds:
a read-back recorded on the step ("remind_at differs (expected X, got Y)": Y) over
the record the write returned (step `result`) over what was asked of it (`args`).
Nested objects are flattened with dotted keys; list members keep their key
(`flights.cabin`), so every member of a list is one candidate value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from .tools import words

_STAMP = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
                    r"\s*(Z|[+-]\d{2}:?\d{2})?)?\s*$", re.I)
_CLOCK = re.compile(r"^\s*(\d{1,2}):(\d{2})(?::\d{2})?\s*$")
# (fixk) a slot stored as a day and two clocks ("2026-12-03 14:00-16:00"): the "-16:00" ends the slot, it is no
# UTC offset (written after a space, not a "T", or beyond any offset's -14:00)
_SLOT = re.compile(r"^\s*\d{4}-\d{2}-\d{2}(?P<sep>[ T])\d{1,2}:\d{2}-(?P<h>\d{1,2}):(?P<m>\d{2})\s*$")
_NUMBER = re.compile(r"^-?\d{1,3}(?:,\d{3})*(?:\.\d+)?$|^-?\d+(?:\.\d+)?$")


@dataclass(frozen=True)
class Stored:
    field: str        # dotted key ("remind_at", "flights.cabin")
    value: object     # as stored (str, number, bool)
    source: str       # readback | result | args
    written: object = None  # the argument of the same key, where there is one
    named: bool = False     # a field of a nested returned record the call named by one of its ids
    label: str | None = None  # for a member of a list of records: its words ("Oatly Oat Milk 64oz")
    latest: bool = False    # a returned leaf in no list, or in the last of two records or more (what was added)


def _flatten(node, prefix: str, out: dict[str, list], labels: dict[tuple[str, int], str] | None = None,
             label: str | None = None) -> None:
    """Dotted key -> values; where `labels` is given, (key, index) -> the words of the list member the
    value is in (a line item's name beside its quantity)."""
    if isinstance(node, dict):
        for k, v in node.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, labels, label)
    elif isinstance(node, list):
        out.setdefault(prefix + "#len", []).append(len(node))  # "2 passengers": a list's length is a count
        for v in node:
            words = label
            if labels is not None and isinstance(v, dict):
                words = " ".join(x for x in v.values() if isinstance(x, str) and not _NUMBER.match(x)) or label
            _flatten(v, prefix, out, labels, words)
    elif node is not None and prefix:
        out.setdefault(prefix, []).append(node)
        if label and labels is not None:
            labels[(prefix, len(out[prefix]) - 1)] = label


# (fixk) keys naming what a change leaves behind (from_event, old_seat, original_flight): not what it acted on
_SOURCE_KEY = {"from", "old", "original", "previous", "prev"}


def _named_records(result, args) -> set[tuple[str, object]]:
    """(dotted key, value) of the nested returned records the call named: a member of a returned
    list holding one of the call's ids (new_item_ids ["8106223139"] and exchange_items[{item_id:
    "8106223139", options: {size: "9"}}]) describes what this write did, not the rest of the record."""
    ids: dict[bool, set[str]] = {True: set(), False: set()}  # under a key saying "new", or not

    def scalars(node, new: bool):
        if isinstance(node, dict):
            for k, v in node.items():
                if not _SOURCE_KEY & set(words(str(k))):  # (fixk) from_event names what the write left
                    scalars(v, new or "new" in words(str(k)))
        elif isinstance(node, list):
            for v in node:
                scalars(v, new)
        elif isinstance(node, (str, int)) and not isinstance(node, bool) and len(str(node)) >= 4:
            ids[new].add(str(node))

    scalars(args, False)
    # a call that names the new thing (new_item_ids) names the old one too (item_ids), and a
    # returned order may still list the old item: only the new ids say what the write made
    ids = ids[True] or ids[False]
    found: set[tuple[str, object]] = set()

    def walk(node, prefix: str):
        if isinstance(node, dict) and prefix and any(
                not isinstance(x, (dict, list, bool)) and str(x) in ids for x in node.values()):
            # (fixk) a nested record, in no list, holding an id the call sent ("event": {"id": "EV-1218",
            # "date": …} for to_event EV-1218) is the thing the write acted on, as a list member is
            flat_one: dict[str, list] = {}
            _flatten(node, prefix, flat_one)
            found.update((k, x) for k, xs in flat_one.items() for x in xs)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{prefix}.{k}" if prefix else str(k))
        elif isinstance(node, list):
            for v in node:
                if isinstance(v, dict) and any(not isinstance(x, (dict, list, bool)) and str(x) in ids
                                               for x in v.values()):
                    flat: dict[str, list] = {}
                    _flatten(v, prefix, flat)
                    found.update((k, x) for k, xs in flat.items() for x in xs)
                else:
                    walk(v, prefix)

    if ids:
        walk(result, "")
    return found


def _latest(node, prefix: str = "", out: set | None = None) -> set[tuple[str, object]]:
    """(dotted key, value) of a returned record's leaves that are in no list, or in the last member
    of a list of two or more: a payment_history's latest entry is the one this write appended; a
    list of one holds what was there before it (an order's original payment)."""
    out = set() if out is None else out
    if isinstance(node, dict):
        for k, v in node.items():
            _latest(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(node, list):
        if len(node) >= 2:
            _latest(node[-1], prefix, out)
    elif node is not None and prefix:
        out.add((prefix, node))
    return out


def _unwrapped(doc):
    """The record itself where a write returned it under one key ({"incident": {...}}, {"slot": {...}},
    {"data": {"booking": {...}}}): the call's own record, its fields the write's, not a nested record
    describing something else."""
    while isinstance(doc, dict) and len(doc) == 1 and isinstance(next(iter(doc.values())), dict):
        doc = next(iter(doc.values()))
    return doc


def _load(doc) -> object:
    if isinstance(doc, str):
        try:
            return json.loads(doc)
        except ValueError:
            return None
    return doc


def readbacks(texts: list[str | None], patterns: list[re.Pattern]) -> list[tuple[str, str, str | None]]:
    """(field, the value read back, the value expected) from the step's error / detail texts; the
    field is "" where the text names none ("提醒已创建：2026-12-04 08:00 …")."""
    found: list[tuple[str, str, str | None]] = []
    for text in texts:
        if not text:
            continue
        for p in patterns:
            for m in p.finditer(text):
                g = m.groupdict()
                found.append(((g.get("field") or "").strip(), g["got"].strip(), (g.get("expected") or "").strip() or None))
    return found


def _same(a, b) -> bool:
    """Whether a value read in a text ("500.00") is an argument's (500)."""
    if isinstance(b, bool) or a is None or b is None:
        return False
    if isinstance(b, (int, float)) and _NUMBER.match(a):
        return abs(float(a.replace(",", "")) - b) < 1e-9
    return isinstance(b, str) and a.strip() == b.strip()


def _read_field(field: str, got: str, expected: str | None, a: dict[str, list], r: dict[str, list]) -> str:
    """The argument a read-back is about: its own key where the call or its record has it; else the
    one argument holding the value it expected ("balance delta 50.00, expected 500.00": amount 500);
    else, for a time read back with no key at all (提醒已创建：…, 接驾时间 …), the call's one date-time
    argument. Otherwise the read-back keeps its own words."""
    if field in a or field in r:
        return field
    # a path into the live object ends in the argument it reads back (spec.replicas: replicas)
    tails = {k for k in (*a, *r) if "." in field and field.endswith("." + k)}
    if len(tails) == 1:
        return tails.pop()
    if expected is not None:
        keys = [k for k, vs in a.items() if any(_same(expected, v) for v in vs)]
        if len(keys) == 1:
            return keys[0]
    if not field and (m := _STAMP.match(got)) is not None and m.group(4) is not None:
        keys = [k for k, vs in a.items() if any(isinstance(v, str) and (t := _STAMP.match(v)) is not None
                                                and t.group(4) is not None for v in vs)]
        if len(keys) == 1:
            return keys[0]
    return field


def stored_values(args, result, error: str | None, detail: str | None,
                  patterns: list[re.Pattern]) -> list[Stored]:
    """Every stored value of one write step, the read-back first."""
    a: dict[str, list] = {}
    r: dict[str, list] = {}
    labels: dict[str, dict] = {"a": {}, "r": {}}
    args_doc, result_doc = _load(args), _unwrapped(_load(result))
    _flatten(args_doc, "", a, labels["a"])
    _flatten(result_doc, "", r, labels["r"])
    named = _named_records(result_doc, args_doc) if isinstance(result_doc, (dict, list)) else set()
    latest = _latest(result_doc) if isinstance(result_doc, dict) else set()
    back: dict[str, str] = {}
    for field, got, expected in readbacks([error, detail], patterns):
        back.setdefault(_read_field(field, got, expected, a, r), got)
    back.pop("", None)
    out: list[Stored] = []
    for key, got in back.items():
        written = (a.get(key) or [None])[0]
        out.append(Stored(key, _like(got, written), "readback", written))
    for key, values in r.items():
        if key in back:
            continue
        for n, v in enumerate(values):
            out.append(Stored(key, v, "result", (a.get(key) or [None])[0], (key, v) in named,
                              labels["r"].get((key, n)), (key, v) in latest))
    for key, values in a.items():
        if key in back or key in r:
            continue
        for n, v in enumerate(values):
            out.append(Stored(key, v, "args", v, label=labels["a"].get((key, n))))
    return out


def _like(got: str, written):
    """A read-back is text ("实际 20.00", "stored quantity=1"); where the argument it is read against
    is a number, a number read back is that number, so amounts and counts compare with it."""
    if isinstance(written, bool) or not isinstance(written, (int, float)) or not _NUMBER.match(got):
        return got
    n = float(got.replace(",", ""))
    return int(n) if isinstance(written, int) and n.is_integer() else n


def as_wall_clocks(value, zone) -> list[tuple[str | None, int, int, object]]:
    """A stored time as (date 'YYYY-MM-DD' or None, hour, minute, the zone it is read in) wall
    clocks; hour -1 for a date alone. A naive value is read as written, in the turn's zone. A
    value with an offset is read as written, in its own offset (the system wrote the user's
    local time there), and in `zone` when one is known. A UTC 'Z' value is an instant and says
    nothing of the user's zone: it is read only in `zone` (09:00Z is not "9 AM" for a user at
    -05:00: that is the eight-hours-off bug this check exists for), and not at all without one."""
    if not isinstance(value, str):
        return []
    m = _STAMP.match(value)
    if m is None:
        c = _CLOCK.match(value)
        return [(None, int(c.group(1)), int(c.group(2)), None)] if c and int(c.group(1)) < 24 else []
    if m.group(4) is None:
        return [(f"{m.group(1)}-{m.group(2)}-{m.group(3)}", -1, -1, None)]
    y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
    if h > 23:
        return []
    off = m.group(7)
    if off and (slot := _slot_end(value)):
        day = f"{y:04d}-{mo:02d}-{d:02d}"  # (fixk) both ends of the slot, as written
        return [(day, h, mi, None), (day, int(slot.group("h")), int(slot.group("m")), None)] if int(slot.group("h")) < 24 else []
    if not off:
        return [(f"{y:04d}-{mo:02d}-{d:02d}", h, mi, None)]
    tz = _offset(off)
    clocks = [] if tz is timezone.utc else [(f"{y:04d}-{mo:02d}-{d:02d}", h, mi, tz)]
    if zone:
        try:
            where = ZoneInfo(zone) if isinstance(zone, str) else zone
            local = datetime(y, mo, d, h, mi, tzinfo=tz).astimezone(where)
            clocks.append((local.strftime("%Y-%m-%d"), local.hour, local.minute, where))
        except (ValueError, KeyError, OSError):
            pass
    return clocks


def _slot_end(value: str):
    """(fixk) The match of a slot's end ("2026-12-03 14:00-16:00"), or None: a "-HH:MM" after a space, or
    beyond any offset, ends a slot."""
    slot = _SLOT.match(value)
    return slot if slot and (slot.group("sep") == " " or int(slot.group("h")) > 14) else None


def _offset(off: str):
    if off.upper() == "Z":
        return timezone.utc
    sign = 1 if off[0] == "+" else -1
    digits = off[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def local_offset(stored: list[Stored]):
    """The UTC offset a write's own local times carry (start 2026-12-09T10:00:00+08:00), as the
    user's zone for its other values where nobody named one; None when none carries one."""
    # the argument too: a call written at -05:00 whose record came back in UTC still says where
    # the user is
    for v in [x for s in stored for x in (s.value, s.written)]:
        m = _STAMP.match(v) if isinstance(v, str) and not _slot_end(v) else None  # (fixk) a slot's end is no offset
        if m and m.group(7) and m.group(7).upper() != "Z" and _offset(m.group(7)).utcoffset(None):
            return _offset(m.group(7))
    return None
