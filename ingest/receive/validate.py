"""Validation of an OTLP trace request before it is acknowledged: what passes, the loader stores.

One function per encoding, called by every front door (OTLP/HTTP here, OTLP/gRPC beside it):

- `check_protobuf(body)` and `check_json(body)` return a `Checked`: the records to spool (each
  one the loader will read whole), how many spans they hold, how many were rejected and why.
  A request that cannot be read at all raises `Refused(400, ...)` and nothing of it is spooled.
- `inflate(raw, encoding, limit)` undoes Content-Encoding (every gzip member; zstd and others
  are refused with 415, since the standard library cannot read them).

Spans are checked by the same conversion the OTLP/JSON reference walk uses
(`spans.span_values`, tested against the loader's SQL), so a span acknowledged here is never
quarantined by the drainer. JSON that Python reads but the loader's JSON parser does not
(a lone surrogate escape, NaN) is refused, and other encodings than UTF-8 (a BOM, UTF-16,
UTF-32) are decoded and spooled as UTF-8. A JSON request larger than one record the loader
accepts (`framing.DEFAULT_MAX_RECORD_BYTES`, the one limit both share) is cut into several
requests, each with its spans' resource and scope, instead of being quarantined whole.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError

from ..read.framing import DEFAULT_MAX_RECORD_BYTES
from ..read.otlp.json_structure import SCOPE_KEYS
from ..read.otlp.proto import parse_request, span_problem
from ..read.otlp.spans import BadSpan, attributes, dumps, span_values

MAX_RECORD_BYTES = DEFAULT_MAX_RECORD_BYTES
MAX_REASONS = 3
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class Refused(Exception):
    """The request as a whole is not accepted: HTTP status and a message for the client."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Checked:
    kind: str  # the spool's kind: "pb" or "jsonl"
    records: list[bytes] = field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    reasons: list[str] = field(default_factory=list)

    def reject(self, reason: str) -> None:
        self.rejected += 1
        if len(self.reasons) < MAX_REASONS:
            self.reasons.append(reason)

    def keep_readable(self, items: list, convert) -> list:
        """The items `convert` can read (each other one rejected with its reason), counted as accepted."""
        keep = []
        for item in items:
            try:
                convert(item)
                keep.append(item)
            except (BadSpan, ValueError, TypeError, AttributeError, OverflowError) as exc:
                self.reject(str(exc) or type(exc).__name__)
        self.accepted += len(keep)
        return keep

    @property
    def message(self) -> str:
        return f"{self.rejected} span(s) rejected: " + "; ".join(self.reasons) if self.rejected else ""


# ---- Content-Encoding ---------------------------------------------------------------------------


def inflate(raw: bytes, encoding: str | None, limit: int) -> bytes:
    """The body without its Content-Encoding; every gzip member is read (RFC 1952 allows several)."""
    enc = (encoding or "identity").strip().lower()
    if enc in ("identity", ""):
        return raw
    if enc not in ("gzip", "x-gzip"):
        raise Refused(415, f"unsupported Content-Encoding {enc}; use gzip or none")
    out = bytearray()
    data = raw
    while True:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += d.decompress(data, limit + 1 - len(out))
        except zlib.error as exc:
            raise Refused(400, f"the gzip body cannot be decompressed: {exc}") from exc
        if len(out) > limit or d.unconsumed_tail:
            raise Refused(413, f"the decompressed request is over the {limit} byte limit (--max-request-mb)")
        if not d.eof:
            raise Refused(400, "the gzip body is truncated (its last member has no end)")
        data = d.unused_data
        if not data.strip(b"\0"):  # some writers pad the last member with zeros
            return bytes(out)


# ---- protobuf -----------------------------------------------------------------------------------


def check_protobuf(body: bytes) -> Checked:
    try:
        request = parse_request(body)
    except DecodeError as exc:
        raise Refused(400, f"the body is not an OTLP ExportTraceServiceRequest in protobuf: {exc}") from exc
    out = Checked("pb")
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            drop_bad(ss.spans, span_problem, out)
    if out.accepted:
        out.records.append(request.SerializeToString() if out.rejected else body)
    return out


def drop_bad(items, problem_of, out: Checked) -> None:
    """Remove the protobuf items (spans, log records) `problem_of` finds a problem in, counting both kinds."""
    bad = [(i, p) for i, item in enumerate(items) if (p := problem_of(item))]
    for i, _ in reversed(bad):
        del items[i]
    for _, problem in bad:
        out.reject(problem)
    out.accepted += len(items)


# ---- JSON ---------------------------------------------------------------------------------------


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON (write it as a string)")


def _text(body: bytes) -> tuple[str, bool]:
    """(the body as text, whether it was other than plain UTF-8); Refused(400) when undecodable."""
    encoding = json.detect_encoding(body)
    try:
        return body.decode(encoding), encoding != "utf-8"
    except UnicodeDecodeError as exc:
        raise Refused(400, f"the body is not valid {encoding.upper()} text: {exc.reason} at byte {exc.start}") from exc


def _structure(obj) -> list[tuple[dict, str, list[tuple[dict, list]]]]:
    """(resourceSpans entry, its scope key, [(scope entry, its spans)]); Refused(400) for what
    the loader would quarantine as a whole request (or could not read)."""
    if not isinstance(obj, dict):
        raise Refused(400, "not an OTLP trace request: the body must be a JSON object with resourceSpans")
    resource_spans = obj.get("resourceSpans")
    key = "resourceSpans"
    if resource_spans is None:
        resource_spans, key = obj.get("resource_spans"), "resource_spans"
    if resource_spans is None:
        return []
    if not isinstance(resource_spans, list):
        raise Refused(400, f"not an OTLP trace request: {key} must be a JSON array")
    out = []
    for ri, rs in enumerate(resource_spans):
        where = f"{key}[{ri}]"
        if not isinstance(rs, dict):
            raise Refused(400, f"not an OTLP trace request: {where} must be a JSON object")
        resource = rs.get("resource")
        if resource is not None and not isinstance(resource, dict):
            raise Refused(400, f"not an OTLP trace request: {where}.resource must be a JSON object")
        for k in SCOPE_KEYS:
            if rs.get(k) is not None and not isinstance(rs[k], list):
                raise Refused(400, f"not an OTLP trace request: {where}.{k} must be a JSON array")
        try:
            attributes((resource or {}).get("attributes"))
        except (BadSpan, ValueError, TypeError, AttributeError) as exc:
            raise Refused(400, f"not an OTLP trace request: {where}.resource.attributes cannot be read: {exc}") from exc
        sk = next((k for k in SCOPE_KEYS if rs.get(k) is not None), SCOPE_KEYS[0])
        scopes = []
        for si, ss in enumerate(rs.get(sk) or ()):
            here = f"{where}.{sk}[{si}]"
            if not isinstance(ss, dict):
                raise Refused(400, f"not an OTLP trace request: {here} must be a JSON object")
            for sc in ("scope", "instrumentationLibrary", "instrumentation_library"):
                if ss.get(sc) is not None and not isinstance(ss[sc], dict):
                    raise Refused(400, f"not an OTLP trace request: {here}.{sc} must be a JSON object")
            spans = ss.get("spans")
            if spans is not None and not isinstance(spans, list):
                raise Refused(400, f"not an OTLP trace request: {here}.spans must be a JSON array")
            scopes.append((ss, spans or []))
        out.append((rs, sk, scopes))
    return out


def read_json(body: bytes):
    """(the parsed body, its text, whether it was other than plain UTF-8); Refused(400) for what is not JSON."""
    text, recoded = _text(body)
    try:
        return json.loads(text, parse_constant=_no_constant), text, recoded
    except ValueError as exc:
        raise Refused(400, f"the body is not valid JSON: {exc}") from exc
    except RecursionError:
        raise Refused(400, "the body is JSON nested too deeply to read") from None


def check_json(body: bytes, max_record_bytes: int = MAX_RECORD_BYTES) -> Checked:
    obj, text, recoded = read_json(body)
    if _SURROGATE_ESCAPE.search(body if not recoded else text.encode("utf-8", "surrogatepass")):
        try:
            dumps(obj).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise Refused(400, "the body holds a lone surrogate escape (\\ud800-\\udfff without its pair), "
                               "which is not valid Unicode") from exc
    tree = _structure(obj)
    out = Checked("jsonl")
    for _, _, scopes in tree:
        for ss, spans in scopes:
            keep = out.keep_readable(spans, span_values)
            if len(keep) != len(spans):
                ss["spans"] = keep
    if not out.accepted:
        return out
    if not out.rejected and not recoded and len(body) <= max_record_bytes:
        out.records.append(body)
        return out
    payload = dumps(obj).encode("utf-8")
    if len(payload) <= max_record_bytes:
        out.records.append(payload)
    else:
        split_request(tree, max_record_bytes, out)
    return out


def split_request(tree, limit: int, out: Checked, request_key: str = "resourceSpans", scope_keys=SCOPE_KEYS,
           item_keys: tuple[str, ...] = ("spans",), item: str = "span") -> None:
    """Cut a request into requests under `limit` bytes, each item (span, log record) kept with its
    resource and scope. `tree`: (resource entry, its scope key, [(scope entry, its items)])."""
    budget = limit // 2  # room for the resource and scope repeated around each group

    def flush(rs, sk, ss, group):
        shell_rs = {k: v for k, v in rs.items() if k not in scope_keys}
        shell_ss = {k: v for k, v in ss.items() if k not in item_keys}
        payload = dumps({request_key: [{**shell_rs, sk: [{**shell_ss, item_keys[0]: group}]}]}).encode("utf-8")
        if len(payload) > limit:  # one item, or its resource, alone over the limit
            out.accepted -= len(group)
            for _ in group:
                out.reject(f"a {item} with its resource and scope is over the {limit // 1048576} MiB a record may hold")
        else:
            out.records.append(payload)

    for rs, sk, scopes in tree:
        for ss, _ in scopes:
            group, size = [], 0
            items = next((ss[k] for k in item_keys if ss.get(k) is not None), ())
            for one in items:
                n = len(dumps(one).encode("utf-8"))
                if group and size + n > budget:
                    flush(rs, sk, ss, group)
                    group, size = [], 0
                group.append(one)
                size += n
            if group:
                flush(rs, sk, ss, group)
