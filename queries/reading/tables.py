"""The reading's input tables for the SQL rules, computed where it is cheapest.

reply_readings: one row per DISTINCT reply text (assistant messages and task
final answers): is_claim, verdict, and the clauses as JSON (text, kind, action,
object) for rules that check each claimed action. Replies repeat (templated
assistants say the same sentence thousands of times): each text is read once.
claim_items: one row per claimed action of a reply: each completion clause
that no later clause took back, with its action class, the object group it
names, and the values it states (queries/reading/values.py) as JSON.
tool_classes: one row per distinct tool name: is_write, action, reason, the
object groups its name names, with MCP annotations read from the steps that
carry them.
"""

from __future__ import annotations

import json
import re

import duckdb
import pyarrow as pa

from ..config import DEFAULT_WRITE_NAMES
from .also import AlsoMarks
from .arrows import arrow_sides
from .coordination import bare_subject_parts
from .listed_lines import listed_lines
from .nouns import ClaimNouns
from .objects import ObjectGroups
from .record_only import RecordOnly
from .rows import arrow_table, temp_table_of
from .tools import ToolTyper, words

READING_COLUMNS = [("reply_text", "VARCHAR"), ("text_id", "INTEGER"), ("is_claim", "BOOLEAN"),
                   ("admits_failure", "BOOLEAN"), ("verdict", "VARCHAR"), ("clauses", "VARCHAR")]
# claim_items is keyed by the reading's text_id, so the turn model carries an integer, not the text
CLAIM_COLUMNS = [("text_id", "INTEGER"), ("clause_no", "INTEGER"), ("action", "VARCHAR"), ("object", "VARCHAR"),
                 ("object_re", "VARCHAR"), ("follows", "BOOLEAN"), ("follows_object", "VARCHAR"), ("backs", "VARCHAR"), ("clause", "VARCHAR"), ("vals", "VARCHAR"),
                 ("noun", "VARCHAR")]
TOOL_OBJECT_COLUMNS = [("tool", "VARCHAR"), ("object", "VARCHAR")]  # one row per object group a tool names
TOOL_COLUMNS = [("tool", "VARCHAR"), ("is_write", "BOOLEAN"), ("action", "VARCHAR"), ("reason", "VARCHAR"),
                ("objects", "VARCHAR"), ("main_object", "VARCHAR"), ("keeps_only", "BOOLEAN"),
                ("causes_nothing", "BOOLEAN"),
                ("reads_record", "BOOLEAN")]

# MCP tool annotations as a step's metadata carries them ({"annotations": {"readOnlyHint": true}});
# the LIKE keeps the JSON parsing to the few steps that have any.
_TOOLS = """
SELECT d.tool, a.read_only, a.destructive
FROM (SELECT DISTINCT tool FROM steps WHERE tool IS NOT NULL) d
LEFT JOIN (
    SELECT tool,
           bool_or(TRY_CAST(json_extract_string(metadata, '$.annotations.readOnlyHint') AS BOOLEAN)) AS read_only,
           bool_or(TRY_CAST(json_extract_string(metadata, '$.annotations.destructiveHint') AS BOOLEAN)) AS destructive
    FROM steps
    WHERE CAST(metadata AS VARCHAR) LIKE '%Hint%'
    GROUP BY tool) a ON a.tool = d.tool
"""


def tool_typer(plan) -> ToolTyper:
    wt = plan.config.write_tools
    # Coding agents' tools (edit, bash, Computer_terminal...) name no verb a lexicon can read: they are
    # writes by name, matched without case, unless the config replaces the defaults.
    defaults = [] if wt.replace_defaults else DEFAULT_WRITE_NAMES
    return ToolTyper(plan.lexicon.data, names=wt.names, exclude=wt.exclude, read_names=wt.read_names,
                     default_names=defaults,
                     patterns=wt.patterns, use_verbs=not wt.replace_defaults)


def read_texts(texts: list[str], plan) -> dict[str, pa.Table]:
    """reply_readings and claim_items of `texts`, text_id being the index in `texts`."""
    types = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BOOLEAN": pa.bool_()}
    reader = plan.lexicon.reader()
    values = plan.lexicon.value_reader()
    groups = ObjectGroups(plan.lexicon.data)
    # the write classes that can back a claim of each class (",delete,update,"), per [actions.*] backed_by
    backs = {cls: "," + ",".join(spec.get("backed_by", [cls])) + ","
             for cls, spec in plan.lexicon.data["actions"].items()}  # ",*," backs with any write
    # a class whose messages are backed by fewer writes than the rest of it (a send: emails by sends only)
    messages = [(cls, re.compile("|".join(spec["message_words"]), re.I), "," + ",".join(spec["message_backed_by"]) + ",")
                for cls, spec in plan.lexicon.data["actions"].items() if spec.get("message_words")]
    consequences = plan.lexicon.data.get("object_consequences", {})
    follows = set(consequences.get("groups", []))
    # a copy the system mails the user as part of a write (a return label, an e-invoice): [object_consequences] mailed
    mailed = re.compile("|".join(consequences.get("mailed", [])) or "$^", re.I)
    mailed_things = re.compile("|".join(consequences.get("mailed_things", [])) or "$^", re.I)
    # a device must be named by the write that backs a claim about it: ",named," after its classes
    named = set(plan.lexicon.data.get("object_named", {}).get("groups", []))
    # a claim a write that only keeps a record can back ("I've logged your complaint"): ",records," after its classes
    record = RecordOnly(plan.lexicon.data)
    # a claim told as one more thing beside another ("… too", 也, 一并): ",also," after its classes
    also = AlsoMarks(plan.lexicon.data)
    # a verb that names its thing ("has been returned": a return), where the claim names no group
    verb_objects = [(g, re.compile(r"(?<![a-z])(?:" + "|".join(map(re.escape, ws)) + r")(?![a-z])", re.I))
                    for g, ws in plan.lexicon.data.get("verb_objects", {}).items()]
    objs = plan.lexicon.data["objects"]
    containers = re.compile(r"\b(?:" + "|".join(objs["containers_en"]) + r")\b|" + "|".join(objs["containers_zh"]), re.I)
    generic = {w for w in objs["en"] + objs["zh"] if w.isalpha()} | {
        w for ws in plan.lexicon.data.get("object_groups", {}).values() for w in ws}
    nouns = ClaimNouns(reader.verb_class, containers, generic)
    claims, admits, verdicts, clauses = [], [], [], []
    items: dict[str, list] = {name: [] for name, _ in CLAIM_COLUMNS}
    for n, t in enumerate(texts):
        r = reader.read(t)
        claims.append(r.is_claim)
        admits.append(r.admits_failure)
        verdicts.append(r.verdict)
        clauses.append(json.dumps([c.as_dict() for c in r.clauses if c.kind != "other"], ensure_ascii=False))
        lined = listed_lines(reader, r)  # a counted headline's things, one line each
        for i in _claim_clauses(r):
            found = _claim_values(r, i, values) if i in r.standing else []
            if i in lined:
                parts, listed = ([lined[i]] if lined[i] is not None else []), True
            else:
                # a plain clause may claim in a coordinated part ("…, CO 80203 and switched the payment…")
                parts = reader.claimed_parts(r.segments[i], skip_first=i not in r.standing)
                if len(parts) == 1 and i in r.standing:
                    # "… and international roaming is turned on": a second claim with a bare subject
                    parts = bare_subject_parts(reader, r.segments[i], parts[0].text) or parts
                # a plain clause that lists what the claim before it did: each thing it names is a claim
                listed = not parts and i not in r.standing
                if listed:
                    parts = [p for p in reader.listed_parts(r, i) if nouns.of(p.text)]
            for k, c in enumerate(parts):
                box = containers.search(c.text)  # "it's on your calendar": made, and where
                action = c.action or (box and "create") or None
                # "added your flight to your calendar": the write is the calendar's
                # (a container of several words by the word that names a group: "to-do list" a to-do)
                group = (next((g for w in [box.group(0), *box.group(0).split()] if (g := groups.of_word(w))), None)
                         if box else None) or groups.of_word(c.object)
                # a continuation's values ("…并为你重新下单，新订单号 #W2239115") follow the last part; what
                # an earlier part states is that part's ("remind you … Monday at 9 and to … Tuesday at 9")
                mine = values.extract(c.text) if len(parts) > 1 else []
                last = k == len(parts) - 1
                if last and len(parts) > 1:
                    earlier = [v for p in parts[:-1] for v in values.extract(p.text)]
                    found_rest = [v for v in found if v not in mine and v not in earlier]
                vals = (mine + (found_rest if last else [])) if len(parts) > 1 else found
                if listed:
                    vals = values.extract(c.text)
                vals = [{**v, "claim_action": action} for v in vals]  # "added 1 bag" is a delta, "now 2 bags" a total
                if group is None and (_CHARGED.search(c.text) or (
                        _MONEY_MOVES.search(c.text) and any(v.get("type") == "amount" for v in vals))):
                    # "the $8 difference has been refunded", "the extra one was charged to your gift card":
                    # money that moved with a write; money given back is a refund, which only a refund,
                    # a cancel or a call carrying the payment can cause ("refunded the $8 difference"
                    # beside a plan change that moved no money)
                    group = "refund" if action == "refund" else "payment"
                if group is None and action == "refund" and not any(v.get("type") == "amount" for v in vals):
                    # (money returned is a refund's, not a return of goods: "the $40 has been returned")
                    group = next((g for g, verb in verb_objects if verb.search(c.text)), None)
                if group == "payment" and action == "update":
                    # "switched the payment to your Visa": the method changed, no money moved
                    group = "payment_method"
                if c.action in ("send", "refund") and mailed.search(c.text) and mailed_things.search(r.segments[i].text):
                    group = "mailed_copy"  # "A return label is on its way by email", 发票已开好并发到您的邮箱
                follows_from = group in follows
                backed = next((b for cls, words, b in messages if cls == action and words.search(c.text)),
                              backs.get(action))
                if backed and record.claim_records(c.text, group):
                    backed += "records,"
                if backed and (k > 0 or i != r.standing[0]) and also.claims_more(c.text):
                    backed += "also,"
                evidence = "(?i)(" + consequences.get("evidence", {}).get(group, "$^") + ")" if follows_from else None
                for name, value in (("text_id", n), ("clause_no", i * 100 + k), ("action", action),
                                    ("object", group), ("object_re", evidence or groups.pattern(group)),
                                    ("follows", follows_from),
                                    ("follows_object", (consequences.get("objects", {}).get(group) or [None])[0]
                                     if follows_from else None),
                                    ("backs", "," + ",".join(consequences.get("classes", {}).get(group, [])) + ","
                                     if follows_from else ((backed or ",") + "named," if group in named else backed)),
                                    ("clause", c.text),
                                    ("vals", json.dumps(vals, ensure_ascii=False) if vals else None),
                                    # what it names in its own words, and the quotations of its clause
                                    ("noun", nouns.of(c.text, r.segments[i].quotes if len(parts) == 1 else ()))):
                    items[name].append(value)
    readings = pa.table({"reply_text": pa.array(texts, pa.string()),
                         "text_id": pa.array(range(len(texts)), pa.int32()), "is_claim": pa.array(claims, pa.bool_()),
                         "admits_failure": pa.array(admits, pa.bool_()),
                         "verdict": pa.array(verdicts, pa.string()), "clauses": pa.array(clauses, pa.string())})
    claimed = pa.table({name: pa.array(items[name], types[kind]) for name, kind in CLAIM_COLUMNS})
    return {"reply_readings": readings, "claim_items": claimed}


# a later clause that tells where money went ("A refund of $54.85 will be credited to your PayPal")
_MONEY_MOVES = re.compile(r"\b(refund|credit|charge|paid|debit|reimburs)|退款|退回|退还|扣款|扣除|到账|返还|支付了", re.I)

# money taken for what a write did ("the extra bag was charged to your gift card", 已从余额扣款)
_CHARGED = re.compile(r"\b(charged|debited|deducted|billed)\b|扣款|扣除|扣了|扣费", re.I)


def _claim_clauses(r) -> list[int]:
    """The clauses that claim: the standing completion clauses, and plain clauses after the first
    of them whose coordinated part does (an address cut at its commas, then "and switched…")."""
    if not r.standing:
        return []
    first = r.standing[0]
    return sorted(set(r.standing) | {j for j, c in enumerate(r.clauses) if j > first and c.kind == "other"})


def _clause_values(r, j: int, values) -> list[dict]:
    """The values clause j states, with its quotations and the asides in parentheses
    ("后天（12 月 3 日）": the date in the aside is told too)."""
    seg = r.segments[j]
    found = values.extract(r.clauses[j].text)
    found += [{"type": "quote", "text": q, "value": q} for q in seg.quotes if len(q.strip()) > 1]
    sides = [values.extract(aside) for aside in seg.asides]
    arrow_sides(r.clauses[j].text, sides, values.context.arrow_re)  # "(M, black) → (L, grey)": arrows.py
    return found + [v for side in sides for v in side]


def _claim_values(r, i: int, values) -> list[dict]:
    """The values claim i states: its own clause's and those of the plain clauses that continue its
    sentence ("…has been updated, with an upgrade to business class"); after a bare headline
    ("Booked! Nopa for 4 at 7:30"), the next sentence's. Amounts told later in the reply about
    the money this claim moved ("A refund of $54.85 will be credited") belong to the last claim."""
    found: list[dict] = []
    head = r.segments[i]
    # a bare opening headline ("Booked!", after a greeting: "亲，已缴清🔥") is followed by what was booked
    bare = (all(c.kind == "other" and len(c.text) <= 6 and len(c.text.split()) <= 2 for c in r.clauses[:i])
            and len(r.clauses[i].text.split()) <= 2 and len(r.clauses[i].text) <= 12) or _headline(r, i, values)
    sentence = head.sentence
    # plain clauses just before the claim in its sentence say what it is about ("next Monday at 10pm
    # it is, the reminder is set"; "13:40前后没有别的事,给车加油的提醒已为您设置")
    for j in range(i - 1, -1, -1):
        if r.clauses[j].kind != "other" or r.segments[j].sentence != sentence:
            break
        found += _clause_values(r, j, values)
    stop = len(r.clauses)
    for j in range(i, len(r.clauses)):
        seg, c = r.segments[j], r.clauses[j]
        if j > i and c.kind != "other" and not (c.kind == "future" and not found):
            stop = j
            break
        if j > i and seg.sentence != sentence:
            if not (bare and not found and seg.sentence == r.segments[i + 1].sentence):
                stop = j
                break
            sentence = seg.sentence
        found += _clause_values(r, j, values)
    if i == r.standing[-1]:
        # after the last claim: the money it moved, and, where it is the reply's one claim, the id it
        # made in the next sentence ("Your order has been placed! Order number #W7305412.")
        alone = len(r.standing) == 1
        for k in range(stop, len(r.clauses)):
            c = r.clauses[k]
            if c.kind in ("other", "future"):
                # (or paid out to the user, [amount] moved: 预计可赔 ¥860, "an estimated payout of $860")
                money = _MONEY_MOVES.search(c.text) is not None or bool(values.moved_re and values.moved_re.search(c.text.lower()))
                made = alone and r.segments[k].sentence == head.sentence + 1
                # (fixh) and what the write left ("4 left for December", 还剩 3 次): compared only with a field of
                # what is left (value_cues.py); and, after the reply's one claim, a quotation set out after a
                # colon in the next sentence ('I left this note for them: "Gate code …"'): the text it wrote
                quoted = made and k > 0 and r.segments[k - 1].closer.strip() in (":", "：") and bool(
                    values.context.text_said.search(r.clauses[k - 1].text.lower()))
                found += [v for v in _clause_values(r, k, values) if v not in found and (
                    (v.get("type") == "amount" and money) or (v.get("type") == "id" and v.get("kind") and made)
                    or v.get("left") or (v.get("type") == "quote" and quoted))]
        # the record it made, set out line by line after it ("**Pick-up:** LAX, Fri Dec 4 at 11:00 PM",
        # "**Order #:** 48-1290-3371", 备注：「…」): each line's label says what its values are
        found += [v for v in _label_lines(r, stop, values) if v not in found]
    return found


def _headline(r, i: int, values) -> bool:
    """A headline sentence that tells no value of its own ("Your exchange is in!", "You're confirmed at
    Ace Hotel Palm Springs 🌴" on its line): the next sentence says what it did (the size swapped to,
    the room and the dates), as after a bare "Booked!". Short, alone in its sentence, closed by an
    exclamation or its line's end, the reply's first claim, and not followed by label lines (read with their labels)."""
    seg = r.segments[i]
    alone = all(r.segments[j].sentence != seg.sentence for j in (i - 1, i + 1) if 0 <= j < len(r.segments))
    return (alone and i == r.standing[0] and i + 1 < len(r.clauses) and seg.closer.strip(" ") in ("!", "！", "\n")
            and r.segments[i + 1].closer not in (":", "：")  # label lines after it are read with their labels
            and len(r.clauses[i].text.split()) <= 8 and not _clause_values(r, i, values))


def _label_lines(r, start: int, values) -> list[dict]:
    """The values of the lines right from clause `start` on that open with a short label and a colon,
    read with their label (so "Order #: 48-1290-3371" is an order's id); the first line that is no such
    line ends them ("Here are the other options: …" lists no record made), and a label naming what was
    there before (previous, original, 原) tells history."""
    out: list[dict] = []
    lines = values.lines
    k = start
    while k < len(r.clauses):
        c, seg = r.clauses[k], r.segments[k]
        rest = [j for j in range(k + 1, len(r.clauses)) if r.segments[j].sentence == seg.sentence]
        label = c.text.strip()
        if (seg.closer not in (":", "：") or not rest or c.kind != "other" or len(label) > lines["label_chars"]
                or len(label.split()) > lines["label_words"]
                or any(r.clauses[j].kind not in ("other", "future") for j in rest)):
            break
        k = rest[-1] + 1
        if lines["history"].search(label):
            continue
        line = label + ": " + ", ".join(r.clauses[j].text for j in rest)
        # an amount keeps its label ("Total with taxes: $438.00"): the field it is about is named so
        out += [{**v, "label": label} if v.get("type") == "amount" else v
                for v in values.extract(line) if v.get("text") not in label]
        for j in rest:
            out += [{"type": "quote", "text": q, "value": q} for q in r.segments[j].quotes if len(q.strip()) > 1]
            out += [v for a in r.segments[j].asides for v in values.extract(a)]
    return out


def tool_table(con: duckdb.DuckDBPyConnection, plan) -> pa.Table:
    typer = tool_typer(plan)
    groups = ObjectGroups(plan.lexicon.data)
    rows = [typer.classify(tool, ro, de) for tool, ro, de in con.execute(_TOOLS).fetchall()]
    record = RecordOnly(plan.lexicon.data)
    uncaused = set(plan.lexicon.data.get("object_consequences", {}).get("uncaused_by", []))
    # ",bag,reservation," so a rule asks "names bag?" with one portable LIKE
    named_lists = [groups.of_tool_words(words(r.tool)) for r in rows]
    return arrow_table(con, TOOL_COLUMNS, {
        "tool": [r.tool for r in rows], "is_write": [r.is_write for r in rows],
        "action": [r.action for r in rows], "reason": [r.reason for r in rows],
        "objects": ["," + ",".join(g) + "," for g in named_lists],
        # the thing the tool is mainly about (update_reservation_flights: reservation)
        "main_object": [g[0] if g else None for g in named_lists],
        # a write that only keeps a record (crm.add_note, claims.save_draft: [record_only])
        "keeps_only": [record.tool_keeps_only(words(r.tool), g) for r, g in zip(rows, named_lists)],
        # a write about nothing but a thing that moves nothing (a quote: [object_consequences] uncaused_by)
        # causes no consequence: no payment follows from catering.quotes.create (orders.create_from_quote
        # is about an order too)
        "causes_nothing": [bool(g) and set(g) <= uncaused for g in named_lists],
        # a read of one record, not a search (get_appointment, not search_slots): tools.reads_record
        "reads_record": [typer.reads_record(r.tool, r.is_write) for r in rows]})


# tool_classes' object lists as rows (tool, object), for equality joins
TOOL_OBJECTS = """
CREATE OR REPLACE TEMP TABLE tool_objects AS
SELECT DISTINCT tool, object FROM (
    SELECT tool, unnest(string_split(trim(objects, ','), ',')) AS object FROM tool_classes) x
WHERE object <> ''
"""


# what create_inputs makes
INPUTS = ("reply_readings", "claim_items", "tool_classes", "tool_objects")


def create_inputs(con: duckdb.DuckDBPyConnection, plan) -> None:
    """The reading's tables and the tool typing as DuckDB temp tables on `con`."""
    from .cache import create_readings

    create_readings(con, plan)  # reply_readings and claim_items, as temp tables
    temp_table_of(con, "tool_classes", tool_table(con, plan))
    con.execute(TOOL_OBJECTS)
