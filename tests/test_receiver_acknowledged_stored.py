"""Acknowledged means stored: every kind of request, sent to a live receiver over real HTTP.

The receiver spools without loading (drain=False: a crash right after each answer), then a new
receiver on the same spool loads it. The check is independent of the receiver's own counters:
this test knows which span ids it sent as good and which as bad, and reads the warehouse.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import urllib.error
import urllib.request

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from test_otlp_support import finished_spans, request_of, sample_turns
from trace_audit.ingest.receive.receiver import Receiver, ReceiverConfig
from trace_audit.queries.warehouse import db

JSON, PB = "application/json", "application/x-protobuf"
TRACE = "5b8efff798038103d269b633813fc60c"


def post(url: str, body: bytes, ctype: str, headers: dict | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(url + "/v1/traces", data=body, method="POST",
                                 headers={"Content-Type": ctype, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw = resp.read()
            if ctype == PB:
                r = ExportTraceServiceResponse.FromString(raw)
                return resp.status, {"rejectedSpans": r.partial_success.rejected_spans}
            return resp.status, json.loads(raw or b"{}").get("partialSuccess", {})
    except urllib.error.HTTPError as err:
        return err.code, {"body": err.read()}


class Ids:
    """Span ids handed out in order: which were sent good, which bad."""

    def __init__(self):
        self.n = 0
        self.good: set[str] = set()
        self.bad: set[str] = set()

    def span(self, good: bool = True, **fields) -> dict:
        self.n += 1
        sid = f"{self.n:016x}"
        (self.good if good else self.bad).add(sid)
        return {"traceId": TRACE, "spanId": sid, "name": f"span {self.n}", "kind": 1,
                "startTimeUnixNano": str(1_790_000_000_000_000_000 + self.n),
                "endTimeUnixNano": str(1_790_000_000_000_001_000 + self.n), **fields}


def request(*spans: dict) -> dict:
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]},
                               "scopeSpans": [{"scope": {"name": "test"}, "spans": list(spans)}]}]}


def attr(value: dict) -> list:
    return [{"key": "k", "value": value}]


def body(obj) -> bytes:
    return json.dumps(obj).encode()


def test_every_acknowledged_span_is_stored_after_a_restart(tmp_path):
    cfg = dict(db_path=str(tmp_path / "w.duckdb"), spool_dir=str(tmp_path / "spool"), port=0)
    ids = Ids()
    r = Receiver(ReceiverConfig(**cfg, drain=False)).start()
    acknowledged = 0
    try:
        def sent(status, answer, good, rejected=0):
            nonlocal acknowledged
            assert status == 200, answer
            assert int(answer.get("rejectedSpans", 0)) == rejected, answer
            if rejected:
                assert answer["errorMessage"].startswith(f"{rejected} span(s) rejected: ")
            acknowledged += good

        # plain JSON, gzip, and a gzip body of two members (the second used to be dropped)
        for enc in ("identity", "gzip", "gzip2"):
            raw = body(request(ids.span(), ids.span()))
            if enc == "gzip":
                raw = gzip.compress(raw)
            elif enc == "gzip2":
                raw = gzip.compress(raw[:40]) + gzip.compress(raw[40:])
            sent(*post(r.url, raw, JSON, {"Content-Encoding": enc[:4] if enc != "identity" else enc}), 2)
        # other Unicode encodings are decoded, not acknowledged and dropped
        for encode in (lambda t: codecs.BOM_UTF8 + t.encode(), lambda t: t.encode("utf-16"),
                       lambda t: t.encode("utf-32-le")):
            text = json.dumps(request(ids.span(name="é ✓"), ids.span()), ensure_ascii=False)
            sent(*post(r.url, encode(text), JSON), 2)
        # bad values: each such span rejected and counted, the rest of its request kept
        bad = [ids.span(False, attributes=attr({"intValue": "abc"})),
               ids.span(False, attributes=attr({"intValue": True})),
               ids.span(False, attributes=attr({"doubleValue": "x"})),
               ids.span(False, attributes=attr({"arrayValue": {"values": None}})),
               ids.span(False, startTimeUnixNano="abc"),
               ids.span(False, startTimeUnixNano=str(2 ** 63)),
               ids.span(False, endTimeUnixNano=2 ** 64),
               ids.span(False, events=[{"name": "e", "timeUnixNano": "soon"}]),
               ids.span(False, events=[{"name": "e", "timeUnixNano": str(2 ** 63)}]),
               ids.span(False, parentSpanId="zz")]
        sent(*post(r.url, body(request(ids.span(), *bad, ids.span())), JSON), 2, rejected=len(bad))
        # a request over the loader's record limit after decompression (16-32 MiB) is kept whole
        big = "x" * 20_000
        spans = [ids.span(attributes=attr({"stringValue": big})) for _ in range(1000)]
        raw = gzip.compress(body(request(*spans)), 1)
        assert len(gzip.decompress(raw)) > 16 * 1024 * 1024
        sent(*post(r.url, raw, JSON, {"Content-Encoding": "gzip"}), len(spans))
        # protobuf from the real SDK, plain and as two gzip members
        pb = request_of(finished_spans(sample_turns())).SerializeToString()
        pb_spans = sum(len(ss.spans) for rs in request_of(finished_spans(sample_turns())).resource_spans
                       for ss in rs.scope_spans)
        sent(*post(r.url, pb, PB), pb_spans)
        # requests that cannot be read at all: 400 (or 415), nothing spooled
        before = sorted(os.listdir(cfg["spool_dir"]))
        refused = [
            (body(request(ids.span(False))).replace(b'"span ', b'"\\ud800 '), JSON, {}, 400),
            (body({"resourceSpans": [{"scopeSpans": {"spans": [ids.span(False)]}}]}), JSON, {}, 400),
            (body({"resourceSpans": [{"scopeSpans": [{"spans": {"x": ids.span(False)}}]}]}), JSON, {}, 400),
            (body({"resourceSpans": {"a": 1}}), JSON, {}, 400),
            (body(request(ids.span(False, attributes=attr({"doubleValue": 1.5}))))
             .replace(b"1.5", b"NaN"), JSON, {}, 400),
            (gzip.compress(body(request(ids.span(False))))[:-12], JSON, {"Content-Encoding": "gzip"}, 400),
            (body(request(ids.span(False))), JSON, {"Content-Encoding": "zstd"}, 415),
            (b"\xff\xfe{\x00", JSON, {}, 400),
        ]
        for raw, ctype, headers, code in refused:
            status, answer = post(r.url, raw, ctype, headers)
            assert status == code, (raw[:80], answer)
        r.spool.seal()
        assert sorted(n.replace("open-", "ready-") for n in os.listdir(cfg["spool_dir"])) == \
            sorted(n.replace("open-", "ready-") for n in before)
    finally:
        r.stop()

    Receiver(ReceiverConfig(**cfg)).start().stop()  # a fresh process: loads what was spooled
    con = db.connect(cfg["db_path"], read_only=True)
    try:
        stored = con.execute("SELECT span_id, count(*) FROM otel_spans GROUP BY span_id").fetchall()
        errors = con.execute("SELECT count(*) FROM ingest_errors").fetchall()[0][0]
    finally:
        con.close()
    assert all(n == 1 for _, n in stored)
    stored_ids = {s for s, _ in stored}
    assert len(stored_ids) == acknowledged
    assert ids.good <= stored_ids and not (ids.bad & stored_ids)
    assert errors == 0, "nothing acknowledged may end in quarantine"
    assert os.listdir(cfg["spool_dir"]) == [] or os.listdir(cfg["spool_dir"]) == ["failed"] and \
        os.listdir(os.path.join(cfg["spool_dir"], "failed")) == []
