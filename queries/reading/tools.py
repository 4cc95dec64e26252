"""Which tools write, and which action class each writes, from how tools are really named.

A name is cut into words at case changes and at _ - . / : and spaces
(`createReminder`, `calendar_create_event`, `todo.add`, `todo/add`,
`POST /v1/reminders`, `mcp__calendar__create_event`). The verb may stand
first or last. In order, what decides:
1. config: [write_tools] names / exclude / read_names, then patterns (regexes);
2. MCP tool annotations recorded on the steps (readOnlyHint, destructiveHint);
3. an HTTP method as the first word (POST/PUT/PATCH/DELETE write, GET reads);
4. the first verb among the words: strong verbs before weak ones (weak verbs
   are also nouns: `order_lookup` reads, `book_table` books);
5. no verb: not a write.
Every decision carries its reason, which `trace-audit rules explain-tools` prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEP = re.compile(r"[\s_.\-/:]+")
# the last segment of a path that names one record: a placeholder ({pnr}, :id, <id>) or an id with a digit
_ONE = re.compile(r"^[{<:]|\d")


@dataclass(frozen=True)
class ToolClass:
    tool: str
    is_write: bool
    action: str | None  # create, update, delete, book, refund, send; None for reads and unknowns
    reason: str


def said_again(word: str, *tables: dict) -> str | None:
    """The verb a word says again ("rebook": book, "reorder": order), when the word itself is no
    verb the lexicon knows: APIs name a repeat of an action by its prefix (flight.rebook,
    orders.reorder, pnr.reissue, bill/repay), and a repeat writes what the action writes. A word
    the lexicon knows keeps its own class (remove, reserve, refund, return). Replies say it the
    same way ("you're rebooked on AA2311"): the claim reader asks this too."""
    word = word.replace("re-", "re", 1)
    if len(word) < 5 or not word.startswith("re") or any(word in t for t in tables):
        return None
    return word[2:]


def words(name: str) -> list[str]:
    return [w.lower() for part in _SEP.split(name) for w in _CAMEL.split(part) if w]


class ToolTyper:
    def __init__(self, lex: dict, names: list[str] = (), exclude: list[str] = (), read_names: list[str] = (),
                 patterns: list[str] = (), use_verbs: bool = True, default_names: list[str] = ()):
        self.strong: dict[str, str | None] = {}
        self.weak: dict[str, str | None] = {}
        for cls, spec in lex["actions"].items():
            for v in spec.get("tool", []):
                self.strong.setdefault(v, cls)
            for v in spec.get("weak_tool", []):
                self.weak.setdefault(v, cls)
        self.last = {v: cls for cls, spec in lex["actions"].items() for v in spec.get("last_tool", [])}
        # a verb whose class is the thing the tool names (ventra.card.reload puts money on a card)
        self.in_context = {v: (cls, frozenset(ctx)) for cls, spec in lex["actions"].items()
                           for v, ctx in spec.get("tool_in_context", {}).items()}
        # things whose making is an action of their own (wise.transfers.create moves money)
        self.nouns = {w: cls for cls, spec in lex["actions"].items() for w in spec.get("tool_nouns", [])}
        tools = lex["tools"]
        for v in tools.get("read", []):
            self.strong.setdefault(v, None)
        for v in tools.get("weak_read", []):
            self.weak.setdefault(v, None)
        self.deferred = frozenset(tools.get("deferred", []))
        self.http_write = dict(tools.get("http_write", {}))
        self.http_read = set(tools.get("http_read", []))
        self.record_read, self.many = frozenset(tools.get("record_read", [])), frozenset(tools.get("many", []))
        self.names, self.exclude, self.read_names = set(names), set(exclude), set(read_names)
        self.patterns = [re.compile(p, re.I) for p in patterns]
        self.default_names = {n.lower() for n in default_names}
        self.use_verbs = use_verbs

    def _verb(self, ws: list[str]) -> tuple[str, str | None, str] | None:
        """(verb, class, 'strong'|'weak'); two-word verbs (transfer_money, check_status) first, and
        a verb said again (rebook, reorder, reissue, repay) as the verb itself."""
        for w in ws:
            if (w in self.in_context and self.in_context[w][1].intersection(ws)
                    and not any(self.strong.get(v, 0) is None or self.weak.get(v, 0) is None for v in ws)):
                return w, self.in_context[w][0], "strong"
        for table, tier in ((self.strong, "strong"), (self.weak, "weak")):
            for i, w in enumerate(ws):
                pair = "_".join(ws[i:i + 2])
                if len(ws) > i + 1 and pair in table:
                    return pair, table[pair], tier
                if w in table:
                    # a weak verb that is a noun first, before a weak read word, names what is read
                    # (hotel_order_list, order_details, email_history); a read word first reads anyway
                    later = next((v for v in ws[i + 1:] if v in self.weak and self.weak[v] is None), None)
                    if tier == "weak" and table[w] is not None and later is not None:
                        return later, None, tier
                    return w, table[w], tier
        # a word said again is a namespace as often as a verb (aa.rebook.offer lists offers,
        # aa.rebook.accept takes one), and a last verb a noun first (request_status): they decide
        # only where no verb the lexicon lists does
        for table, tier in ((self.strong, "strong"), (self.weak, "weak")):
            for w in ws:
                again = said_again(w, self.strong, self.weak)
                if again is not None and again in table:
                    return w, table[again], tier
        # a verb named by its -ing form (clinic_booking, order_tracking): the verb, where nothing else decides
        for table, tier in ((self.strong, "strong"), (self.weak, "weak")):
            for w in ws:
                base = next((b for b in (w[:-3], w[:-3] + "e") if len(w) > 5 and w.endswith("ing") and b in table), None)
                if base is not None:
                    return w, table[base], tier
        return next(((w, self.last[w], "weak") for w in ws if w in self.last), None)

    @staticmethod
    def _after_service(tool: str, ws: list[str]) -> list[str]:
        """A dotted name of three parts or more says service.thing.verb: its first part names the service
        or what it serves, a noun even where it is also a verb (show.seat.lock locks a show's seats,
        order.items.add adds one); the words after it decide, and the first part only where they hold no
        verb (book.table.v1)."""
        if tool.count(".") < 2 or "/" in tool or " " in tool:
            return ws
        return ws[len(words(tool.split(".", 1)[0])):]

    def _made(self, ws: list[str], action: str | None) -> str | None:
        """Making a thing whose making is an action of its own: bank.transfer.submit moves money; a
        send for later (notify.schedule) makes the job that will send, and sends nothing yet."""
        if action == "send" and self.deferred.intersection(ws):
            return "create"
        if action != "create":
            return action
        return next((self.nouns[w] for w in ws if w in self.nouns), action)

    def _path_verb(self, tool: str, ws: list[str]) -> tuple[str, str] | None:
        """A POST to an action's own path, its last segment (POST /ops/services/pay-gw/restart, POST
        /redis/flush, POST /orders/7/cancel), does that action; a path of things only (POST /v1/reminders)
        makes one. Strong verbs only: a weak one is a noun in a path."""
        if not (ws and len(ws) > 1 and tool[:len(ws[0])].isupper() and self.http_write.get(ws[0]) == "create"):
            return None
        last = words(tool.rstrip("/ ").rsplit("/", 1)[-1]) if "/" in tool else []
        path = self._verb(last) if last else None
        return (path[0], path[1]) if path is not None and path[1] is not None and path[2] == "strong" else None

    def classify(self, tool: str, read_only: bool | None = None, destructive: bool | None = None) -> ToolClass:
        ws = words(tool)
        # (the path's verb also names what an annotated write does: POST /v1/invoices/inv_1/void with
        # readOnlyHint=false voids, it does not create)
        path = self._path_verb(tool, ws)
        verb = (*path, "strong") if path is not None else (self._verb(self._after_service(tool, ws)) or self._verb(ws))
        action = verb[1] if verb else None
        action = self._made(ws, action)
        if tool in self.exclude:
            return ToolClass(tool, False, None, "config write_tools.exclude")
        if tool in self.read_names:
            return ToolClass(tool, False, None, "config write_tools.read_names")
        if tool in self.names:
            return ToolClass(tool, True, action, "config write_tools.names")
        if tool.lower() in self.default_names:
            return ToolClass(tool, True, action or "update", "coding-agent tool (default write name)")
        for p in self.patterns:
            if p.search(tool):
                return ToolClass(tool, True, action, f"config write_tools.patterns {p.pattern!r}")
        if read_only is True and not destructive:
            return ToolClass(tool, False, None, "MCP annotation readOnlyHint=true")
        if destructive or read_only is False:
            hint = "destructiveHint=true" if destructive else "readOnlyHint=false"
            return ToolClass(tool, True, action or ("delete" if destructive else None), f"MCP annotation {hint}")
        if not self.use_verbs:
            return ToolClass(tool, False, None, "not in write_tools (replace_defaults: name verbs not read)")
        method = tool[:len(ws[0])] if ws else ""
        if method.isupper() and len(ws) > 1:  # "POST /v1/reminders", "GET:/orders"
            if ws[0] in self.http_write:
                if path is not None:  # (the path verb read above)
                    return ToolClass(tool, True, self._made(ws, path[1]),
                                     f"HTTP method {method} to the path verb {path[0]!r} -> {path[1]}")
                return ToolClass(tool, True, self._made(ws, self.http_write[ws[0]]), f"HTTP method {method}")
            if ws[0] in self.http_read:
                return ToolClass(tool, False, None, f"HTTP method {method}")
        if verb is None:
            return ToolClass(tool, False, None, "no verb in the name")
        where = "first" if ws and ws[0] == verb[0].split("_")[0] else "later"
        if action is None:
            return ToolClass(tool, False, None, f"read verb {verb[0]!r} ({verb[2]}, {where} word)")
        later = ", a send for later" if verb[1] == "send" and action == "create" else ""
        return ToolClass(tool, True, action, f"write verb {verb[0]!r} -> {action} ({verb[2]}, {where} word{later})")

    def reads_record(self, tool: str, is_write: bool) -> bool:
        """A read of one record, not a search ([tools] record_read, many): get_appointment, lookup_booking,
        clinic.appointments.get, GET /v1/bookings/{pnr}; not search_slots, list_availability,
        get_available_slots, get_reminders (a plural after a first verb lists), GET /orders. A present
        state told after such a read reports that record (reported.py, said_but_not_done.sql)."""
        ws = words(tool)
        if is_write or not ws or self.many.intersection(ws):
            return False
        if tool[:len(ws[0])].isupper() and len(ws) > 1 and ws[0] in self.http_read:
            return "/" in tool and _ONE.search(tool.rstrip("/ ").rsplit("/", 1)[-1]) is not None
        verb = self._verb(ws)
        if verb is None or verb[1] is not None or verb[0] not in self.record_read:
            return False
        after = ws[ws.index(verb[0].split("_")[0]) + 1:]
        return not any(len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")) and w not in self.record_read
                       for w in after)
