"""Each value a reply told the user, or a user asked for, against what the write stored.

value_checks: one row per compared value (issue 15, the third kind of false success):
- check 'told': a claimed action's clause states a value (claimed_actions.vals); it is
  compared with the stored values of the write that backs that claim
  (queries/reading/stored_values.py: read-back over returned record over args);
- check 'asked': the user's request (the last user message before the write, else the
  task's goal) states a value; it is compared with the write's arguments only.
A value is compared only with stored fields of its own kind (a time with time fields,
a cabin class with fields holding a cabin class, a count of bags with fields that
name bags, a quotation with text fields); with none, nothing is said. verdict is
'match' or 'mismatch'; rules read the mismatches, the views show them all.

It runs after the turn model, on DuckDB (engines get the result as data), and only
over the few writes that back a claim stating a value, not over every step: value_run.py
gathers the inputs, compares each distinct one once and keeps the results between runs.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from .count_fits import added_line, item_words as _item_words
from .durations import length_agrees
from .field_words import FieldWords, plain_id, shape as id_shape
from .objects import ObjectGroups
from .told_times import DAY_FIELDS, day_beside_clock, local_time, offset_of, time_agrees
from .stored_values import Stored, as_wall_clocks, local_offset, stored_values
from .tools import words
from .value_fits import MoreFits, names as _names
from .values import singular

CHECK_COLUMNS = [("reply_id", "VARCHAR"), ("task_id", "VARCHAR"), ("clause_no", "INTEGER"), ("seq", "INTEGER"),
                 ("tool", "VARCHAR"),
                 ("check_kind", "VARCHAR"), ("field", "VARCHAR"), ("value_type", "VARCHAR"), ("told", "VARCHAR"),
                 ("written", "VARCHAR"), ("stored", "VARCHAR"), ("stored_from", "VARCHAR"), ("verdict", "VARCHAR")]
_DECIMAL = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^-?\d+(?:\.\d+)?$")
# a "$" or "¥" said without its country is any currency written with it
_SYMBOL_CURRENCIES = {"$": {"USD", "CAD", "AUD", "NZD", "HKD", "SGD", "TWD", "MXN"}, "¥": {"CNY", "JPY"},
                      "￥": {"CNY", "JPY"}}
_ASKABLE = ("time", "choice", "count", "amount", "id", "duration", "measure")  # what a request can ask a write to hold
_CJK = re.compile(r"[\u3400-\u9fff]")
_TIERS = {"readback": 0, "result": 1, "args": 2}
_NUMERIC = re.compile(r"^\d{1,3}(?:\.\d)?$")


class Comparer:
    def __init__(self, lex: dict):
        values = lex.get("values", {})
        self.enums: dict[str, dict[str, str]] = {}
        # bare words that are also ordinary adjectives ("the new economy flights"): a value stated only
        # by one of these is not compared ([enums.*] ambiguous in values.toml)
        self.ambiguous = {name: {_norm(w) for w in spec.get("ambiguous", [])}
                          for name, spec in values.get("enums", {}).items()}
        for name, spec in values.get("enums", {}).items():
            names = {}
            for member, aliases in spec.get("members", {}).items():
                for a in [member, member.replace("_", " "), *aliases]:
                    names.setdefault(_norm(a), member)
            self.enums[name] = names
        # names a record stores for a member, never read in a reply (seatClass FIRST), in fields whose key
        # has one of the enum's stored_fields words; and a Chinese name's last character (烟灰: grey)
        self.stored_names = {name: ({_norm(a): m for m, aliases in spec.get("stored", {}).items() for a in aliases},
                                    set(spec.get("stored_fields", [])))
                             for name, spec in values.get("enums", {}).items() if spec.get("stored")}
        self.zh_heads = {name: spec["zh_heads"] for name, spec in values.get("enums", {}).items()
                         if spec.get("zh_heads")}
        # the stored members a generic member is met by (a double room asked, a queen stored)
        self.agrees = {name: spec["agrees"] for name, spec in values.get("enums", {}).items() if spec.get("agrees")}
        self.groups = ObjectGroups(lex)
        self.fw = FieldWords(lex)  # which stored fields hold which kind of value
        self.people = {w.lower() for w in values.get("count", {}).get("people", [])}  # what a count of people names
        # the stored fields of each end of a range or a stay (check_in, return_date, end.dateTime)
        spans = values.get("time", {}).get("spans", {})
        self.span_fields = {name: set(spec.get("fields", [])) for name, spec in spans.items()}
        self.patterns = [re.compile(p) for p in [*lex.get("readback", {}).get("patterns", []),
                                                 *values.get("readback", {}).get("patterns", [])]]
        self.approx_minutes = values.get("time", {}).get("approx_minutes", 0)
        self.night_until = values.get("time", {}).get("night_until", 0)  # "tonight" at 00:30 is still tonight
        self.halves: list[Stored] = []  # set by compare(): the other field of a day and a clock that agreed
        self.more = MoreFits(lex)  # (fixk) days of the month, people by other words, counts done, instance types

    def compare(self, told: dict, stored: list[Stored], at: datetime | None, zone: str | None):
        """(field, stored value, source, written, verdict) for one told value, or None when no stored
        field is of the value's kind."""
        kind = told.get("type")
        fits = []
        for s in stored:
            hit = self._fits(kind, told, s, at, zone)
            if hit is not None:
                fits.append((s, hit))
        if kind == "time" and told.get("span") and fits:
            # a time of one end of a range is compared with the fields of that end where the write
            # has any ("checking in Dec 17" with check_in, not check_out), never with the other end's
            ends = [(s, ok, self._span(s.field)) for s, ok in fits]
            mine = [(s, ok) for s, ok, e in ends if e == told["span"]]
            if mine and any(told.get(d) is not None for d in DAY_FIELDS):
                # a date field of neither end is the day of both ("date" beside "start" and "end")
                mine += [(s, ok) for s, ok, e in ends
                         if e is None and all(h < 0 for _, h, _, _ in as_wall_clocks(s.value, zone))]
            # an end told as a length from a start is about the end fields only
            fits = mine or [(s, ok) for s, ok, e in ends if e is None and not told.get("span_only")]
        if kind == "id" and fits and not any(ok for _, ok in fits):
            # the write holds the told id under another name (服务单号AS99812: service_id, not order_id)
            same = next((s for s in stored if isinstance(s.value, str) and (words(s.field) or [""])[-1] in self.fw.id
                         and plain_id(s.value) == plain_id(told.get("value") or "")), None)
            if same is not None:
                return same.field, same.value, same.source, same.written, "match"
        if kind == "id" and not fits and told.get("kind") and (sh := id_shape(told.get("value") or "")):
            # an id told by a kind no field of the write names (运单号 SF…, kept as consignment_ref): the one
            # id field holding a code of the same letters-and-digits shape is where it went
            alike = [s for s in stored if isinstance(s.value, str) and (words(s.field) or [""])[-1] in self.fw.id
                     and id_shape(s.value) == sh]
            if len({s.field for s in alike}) == 1:
                fits = [(s, plain_id(s.value) == plain_id(told["value"])) for s in alike]
        if not fits:
            return None
        if (own := added_line(told, fits, self.fw)) is not None:  # "Added 2" over add_item(qty=3)
            return own
        if kind == "count" and (items := self._line_items(told, fits)):
            # a count of a named thing against the list member that names it ("2 cartons of oat milk"
            # against items[{product: "Oatly Oat Milk 64oz", qty: 1}]), not the order's total count
            want, total = told.get("value") or 0, sum(s.value for s, _ in items)
            ok = [s for s, agrees in items if agrees] or ([items[0][0]] if total == want else [])
            s = ok[0] if ok else items[0][0]
            # named by its member, so that another member's count told beside it is not "the same field"
            return f"{s.field}[{s.label}]", s.value, s.source, s.written, "match" if ok else "mismatch"
        if kind == "count":  # (fixk) a returned count of what was done (issued: 2) over the count asked (quantity: 3)
            fits = self.more.done_first(fits)
        if kind == "count" and told.get("total") and any("total" in words(s.field) for s, _ in fits):
            # a count said as the whole is about the total field ("2 bags in total": total_baggages)
            fits = [(s, ok) for s, ok in fits if "total" in words(s.field)]
        if kind == "count" and len({s.field for s, _ in fits}) > 1 and any(ok for _, ok in fits):
            # a count told against several count fields (total_baggages, nonfree_baggages) is about the
            # one it equals, whatever another field's read-back says (equal before merely holding as much:
            # "added 2 bags" is nonfree_baggages 2, not total_baggages 3, which a total told beside it is about)
            fits = [(s, ok) for s, ok in fits if ok and s.value == told.get("value")] or [(s, ok) for s, ok in fits if ok]
        if kind == "amount" and told.get("label"):
            # an amount told under a label naming its kind ("Total with taxes: $438.00", 总价：¥826) is
            # about the field that word names (total_usd), not the nightly rate beside it
            said = set(words(told["label"])) | {w for z, w in self.fw.label_zh.items() if z in told["label"]}
            fits = [(s, ok) for s, ok in fits if said & set(words(s.field))] or fits
        if kind == "amount":
            # a write holds several amounts (the amount moved, the new balance, a fee): a told amount is
            # about the one it equals, judged by that field's best evidence
            best_of: dict[str, tuple] = {}
            for s, ok in fits:
                if s.field not in best_of or _TIERS[s.source] < _TIERS[best_of[s.field][0].source] or (
                        ok and not best_of[s.field][1] and s.source == best_of[s.field][0].source):
                    best_of[s.field] = (s, ok)  # (a list's members share a field: the one it equals)
            fits = [f for f in best_of.values() if f[1]] or fits
        # the best evidence that has a field of this kind: a read-back, else the returned record, else args
        best = min(_TIERS[s.source] for s, _ in fits)
        fits = [(s, ok) for s, ok in fits if _TIERS[s.source] == best]
        halves: list[Stored] = []  # the other half of a day and a clock that both agreed
        if kind == "time" and len(fits) > 1 and told.get("hour") is not None:
            # a day and a clock told, stored as a date field and a clock field (dueDate, dueTime): both halves
            # must agree, where no field holds both
            shapes = {"day": [], "clock": [], "full": []}
            for s, ok in fits:
                clocks = as_wall_clocks(s.value, zone)
                shape = ("day" if all(h < 0 for _, h, _, _ in clocks) else
                         "clock" if all(d is None for d, *_ in clocks) else "full")
                shapes[shape].append((s, ok))
            if shapes["day"] and shapes["clock"] and not shapes["full"]:
                wrong = [half for half in (shapes["day"], shapes["clock"]) if not any(ok for _, ok in half)]
                if wrong:
                    fits = wrong[0]
                else:  # both fields agreed: another day or clock told in the clause is about another thing
                    halves = [next(s for s, ok in half if ok) for half in (shapes["day"], shapes["clock"])]
            elif shapes["full"] and shapes["day"]:  # (fixh) a day with its clock: a field holding both (bank_cutoff),
                fits = shapes["full"]  # not a date beside it (pay_date), is what it tells
        good = [s for s, ok in fits if ok]
        s = good[0] if good else next((s for s, _ in fits if s.source == "readback"), fits[0][0])
        if good and kind == "amount" and told.get("currency"):
            # the right number in another currency ("$300" told, EUR 300 sent) is not what was told
            cur = _currency_of(s, stored)
            if cur is not None and cur.value.upper() not in _currencies(told):
                return cur.field, cur.value, cur.source, cur.written, "mismatch"
        if good:
            self.halves = [h for h in halves if h is not s]
        return s.field, s.value, s.source, s.written, "match" if good else "mismatch"

    def _stored_member(self, enum: str, v: str, key: list[str]) -> str | None:
        """The member a stored value names in its record's words: a code listed under `stored` in a field of its
        kind (seatClass FIRST; UNL_STARTER: the one its words name), or a Chinese name's last character (烟灰: grey)."""
        codes, fields = self.stored_names.get(enum, ({}, set()))
        found = {codes[w] for w in [_norm(v), *_norm(v).split()] if w in codes} if fields & set(key) else set()
        if len(found) == 1:
            return found.pop()
        heads = self.zh_heads.get(enum)
        name = v.strip().removesuffix("色")
        if heads and 2 <= len(name) <= 5 and _CJK.fullmatch(name[-1]) and all(_CJK.match(ch) for ch in name):
            return heads.get(name[-1])
        return None

    def _people(self, obj: str) -> bool:
        """Whether a counted thing is people: a word of [count] people, or a Chinese noun holding one (客人, 大人)."""
        return singular(obj.lower()) in self.people or (bool(_CJK.search(obj)) and any(
            w in obj for w in self.people if _CJK.search(w)))

    def _line_items(self, told: dict, fits: list) -> list:
        """The fits in list members whose words name the counted thing (its "of" phrase, else its
        noun; not a generic one: items, units); several that do are one thing in parts (an adult and
        a child ticket: their sum is told)."""
        said = _item_words(told.get("item") or told.get("object") or "") - self.fw.generic_items
        if not said:
            return []
        return [(s, ok) for s, ok in fits if s.label and isinstance(s.value, int) and said & _item_words(s.label)]

    def _span(self, field: str) -> str | None:
        """Which end a stored field is of, by its words and word pairs (check_in, checkIn, end.dateTime)."""
        key = words(field)
        names = set(key) | {a + sep + b for a, b in zip(key, key[1:]) for sep in ("_", "")}
        found = [end for end, fields in self.span_fields.items() if names & fields]
        return found[0] if len(found) == 1 else None

    def _fits(self, kind, told, s: Stored, at, zone) -> bool | None:
        """None: the stored field is not of the told value's kind; else whether they agree."""
        v = s.value
        key = words(s.field.replace("#len", ""))
        if "." in s.field and s.source == "result" and s.written is None and not (
                s.named and kind in ("choice", "count", "time")) and not (
                kind == "amount" and told.get("moved") and s.latest and {singular(w) for w in key[:-1]} & self.fw.money_records) and not (
                kind == "amount" and s.latest and s.label is None and s.field.count(".") == 1
                and set(words(s.field.split(".")[0])) & self.fw.price_records):
            # a returned record's nested fields describe everything it holds (its items, flights),
            # except at a path the call wrote itself (start.dateTime written and returned), the
            # options, quantity and times of the item the call named by its id (the size exchanged to,
            # the departure of the flight moved to), and
            # the money the write moved (refund.amount, payment_history[].amount), against money told
            # to have moved ("the $50 fee was charged", not "priced at $2,621.77"); and the write's own price returned
            # as a record of one level, in no list ("total": {"amount_cents": …}, "premium": {"total_cents": …})
            return None
        last = (key or [""])[-1]
        if kind == "duration":  # "2 hours" against duration_min (durations.py)
            return length_agrees(told, s.field, v, self.fw)
        if kind == "time":
            if s.field.lower() in self.fw.record_times:
                return None
            if (day := self.more.day_of_month(told, key, v)) is not None:
                return day  # "the 20th of every month" against draft_day: 20 (value_fits.py)
            slack = self.approx_minutes if told.get("approx") else 0
            return time_agrees(told, as_wall_clocks(v, zone), at, loose_day=zone is None, slack=slack,
                               night_until=self.night_until)
        if kind == "choice":
            if _norm(told.get("text") or "") in self.ambiguous.get(told.get("enum"), ()) and not told.get("target"):
                return None  # (fixk) a change's target ("upgrade … to business") names the member, no adjective
            if _NUMERIC.match(str(told.get("value"))):  # a numeric size (43 码, size 9.5) against a size field
                if last != told.get("enum") or isinstance(v, bool) or not _NUMERIC.match(str(v).strip()):
                    return None
                return float(str(v).strip()) == float(told["value"])
            names = self.enums.get(told.get("enum"), {})
            # a stored id of the choice ("credit_card_7815", "gift_card_0934") names its member
            member = (names.get(_norm(v)) or names.get(re.sub(r"[\s]*\d+$", "", _norm(v)))) if isinstance(v, str) else None
            if member is None and isinstance(v, str) and " " in _norm(v):
                # a shop's colour name ends in the colour ("Stone Grey", "Midnight Navy")
                member = names.get(_norm(v).rsplit(" ", 1)[1])
            if member is None and isinstance(v, str):
                member = self._stored_member(told.get("enum"), v, key)
            return None if member is None else (member == told.get("value") or member in self.agrees.get(
                told.get("enum"), {}).get(told.get("value"), ()))
        if kind == "amount":
            if last in self.fw.currencies and len(key) > 1:
                key, last = key[:-1], key[-2]  # total_usd: a total in dollars (nightly_rate_usd: a rate)
            minor = last in self.fw.minor and any(w in self.fw.amount for w in key[:-1])
            if isinstance(v, str) and _DECIMAL.match(v.strip()):  # "89.50", "1,243.18": decimals kept as text
                v = float(v.replace(",", "")) if "." in v else int(v.replace(",", ""))
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (minor or last in self.fw.amount) \
                    or self.fw.off_kind(told, key):
                return None
            want = float(told.get("value") or 0)
            v = abs(v)  # money given back is often stored negative (payment_history: -512 refunded)
            if minor:
                return abs(float(v) - want * 100) < 0.5
            # an integer of minor units (Stripe's 1500 for $15.00) states the same amount
            return abs(float(v) - want) < 0.01 or (isinstance(v, int) and abs(v - want * 100) < 0.5)
        if kind == "count":
            if isinstance(v, bool) or not isinstance(v, int):
                return None
            if s.label and not told.get("object"):
                return None  # a count of nothing named (共 3 件) says nothing of one line item
            if self.fw.off_kind(told, key) or not (told.get("left") or last in self.fw.count or "_".join(key) in self.fw.count
                                                   or _names(told.get("object"), key, self.groups) or self.more.done_counts(key)
                                                   or self.more.same_people(told.get("object"), key)):
                return None
            if ({last, "_".join(key)} & self.fw.people and (obj := told.get("object"))
                    and not _names(obj, key, self.groups) and not self._people(obj)):
                return None  # a field of people (guests) counts no nights (两晚) nor rooms
            # "added one bag" against total_baggages 2: a total may hold more than this call added; so may
            # any count field against a count said as more ("add two more people": party_size 6)
            added = not told.get("total") and (
                (told.get("claim_action") == "create" and key[:1] == ["total"]) or bool(told.get("delta")))
            return v == told.get("value") or (added and v >= (told.get("value") or 0))
        if kind == "id":
            if (it := self.more.instance_type(told, key, v)) is not None or self.more.no_number(key, v):
                return it  # (fixk) t3.large against InstanceType; store: "Main St" holds no number
            kinds = self.fw.kinds_of(told.get("kind"))
            if not told.get("kind") and isinstance(v, str) and (last in self.fw.id or len(last) > 2 and plain_id(
                    v).startswith(last.upper())) and id_shape(v) is not None and id_shape(v) == id_shape(told.get("value") or ""):
                # an id told with no word for its kind, written as the write's id is (EK2PMR told, EK2PLQ stored: a
                # code of the same letters-and-digits shape; rma: RMA-8830412, a field named as its ids begin)
                return plain_id(v) == plain_id(told.get("value") or "")
            if isinstance(v, int) and not isinstance(v, bool):
                v = str(v)  # an id kept as a number (incident_number: 4821), told as "#4812"
            if not isinstance(v, str) or not told.get("kind") or last not in self.fw.id or not kinds & set(key):
                return None
            return plain_id(v) == plain_id(told.get("value") or "")
        if kind == "quote":
            if not isinstance(v, str) or last not in self.fw.text:
                return None
            a, b = _norm(told.get("value") or ""), _norm(v)
            return self.more.quote_agrees(a, b)  # (fixk) a quote longer than the text sent is more than was sent
        # a temperature, a percentage: against a field of its kind only (measures.py)
        return self.fw.measures.fits(told, key, v) if kind == "measure" else None


def _currency_of(amount: Stored, stored: list[Stored]) -> Stored | None:
    """The currency stored beside an amount: the field of the same prefix (target_amount:
    target_currency, amount.value: amount.currency), else the one currency of its source."""
    key = words(amount.field)
    same = [s for s in stored if s.source == amount.source and isinstance(s.value, str)
            and re.fullmatch(r"[A-Za-z]{3}", s.value) and (words(s.field) or [""])[-1] == "currency"]
    near = [s for s in same if words(s.field)[:-1] == key[:-1]]
    if near:
        return near[0]
    return same[0] if len({s.value.upper() for s in same}) == 1 else None


def _currencies(told: dict) -> set[str]:
    """The currencies a told amount can be in: its own, or every one written with its bare symbol."""
    text = told.get("text") or ""
    for sym, codes in _SYMBOL_CURRENCIES.items():
        if sym in text and not re.search(r"[A-Z]{1,2}\s?" + re.escape(sym), text):  # "US$", "HK$", "C$" name theirs
            return codes | {told["currency"]}
    return {told["currency"]}


def _norm(text) -> str:
    return re.sub(r"[\s_\-]+", " ", str(text)).strip().lower()


def _text(v) -> str | None:
    return None if v is None else (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))


def _said(tz: str | None, tz_source: str | None) -> bool:
    """Whether somebody named the file's zone. UTC by default, or UTC handed down by a caller that
    named none, says nothing of where the user is."""
    if not tz_source or tz_source.startswith("default"):
        return False
    return not (tz_source == "given" and (tz or "UTC") == "UTC")


def _compared(cmp: Comparer, wants: list[dict], stored: list[Stored], at, tz, zone_known: bool = True,
              turn_offset: str | None = None, join_days: bool = True) -> list[tuple]:
    out = []
    # where nobody named a zone: the write's own offset, else the one its turn's other steps write in
    hint = None if zone_known else (local_offset(stored) or offset_of(turn_offset))
    when = local_time(at, tz or "UTC") if hint is None else local_time(at, hint)
    dates = {w["date"] for w in wants if w.get("type") == "time" and w.get("date")}
    loose = not zone_known and hint is None  # a relative day can fall on two days
    # a reply's day and clock told apart are one time; a request's may be a wish and a bound
    # (明早提醒我，我九点前起不来): not joined
    wants, absorbed = day_beside_clock(wants) if join_days else (wants, set())
    for vi, want in enumerate(wants):
        if want.get("role") == "from" or vi in absorbed:
            continue
        if dates and want.get("type") == "time" and not want.get("date"):
            if want.get("hour") is None:
                continue  # "next Wednesday, 9 December": the date says which Wednesday
            if loose and len(dates) == 1 and (want.get("day_offset") is not None or want.get("weekday") is not None):
                # "后天（12月7日）早上7点" with no zone to resolve 后天 in: the date says which day
                want = {**want, "date": next(iter(dates)), "day_offset": None, "weekday": None}
        prev = wants[vi - 1] if vi else {}
        if (want.get("type") == "time" and want.get("date") and want.get("weekday") is None
                and prev.get("type") == "time" and prev.get("weekday") is not None
                and not prev.get("date") and prev.get("hour") is None):
            # "Friday, December 12" cut at its comma: the weekday is the date's, and must be its weekday
            want = {**want, "weekday": prev["weekday"], "text": f"{prev.get('text')}, {want.get('text')}"}
        # a stored time with an offset is read in the user's zone; with no zone named, it is not judged
        cmp.halves = []
        hit = cmp.compare(want, stored, when, (tz or "UTC") if zone_known else hint)
        if hit:
            field, value, source, written, verdict = hit
            out.append((vi, field, want["type"], want.get("text"), _text(written), _text(value), source, verdict))
            # the date field a day-and-clock agreed with is matched too, so that a second day told in the
            # clause ("12月8日 10:00 一场，12月10日同一时段也订上了", one booking) is about another thing
            out += [(vi, h.field, want["type"], want.get("text"), _text(h.written), _text(h.value), h.source, "match")
                    for h in cmp.halves]
    return out
