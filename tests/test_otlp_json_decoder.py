"""The DuckDB decoder of OTLP/JSON (`otlp.json_sql`) gives what the Python walk (`otlp.spans`) gives.

`spans.add_request` is the readable statement of how an OTLP/JSON request becomes
`otel_spans` rows; ingest runs `json_sql` instead. Random requests mix every
encoding producers write (hex, upper-case hex, base64 and URL-safe base64 ids;
enum numbers, digit strings and names; int64 as strings and numbers;
camelCase and snake_case; every AnyValue kind, nested; repeated keys; events;
the deprecated instrumentationLibrarySpans) with bad ids, and both must accept
the same spans with the same values and reject the same spans for the same field.
"""

from __future__ import annotations

import base64
import json
import random

import duckdb
import pyarrow as pa
import pytest

from trace_audit.ingest.read.otlp.json_sql import decode_requests
from trace_audit.ingest.read.otlp.spans import SpanBatch, add_request

JSON_COLUMNS = ("attributes", "resource", "events")


def _id(rng: random.Random, n: int):
    raw = rng.randbytes(n)
    return rng.choice([
        raw.hex(), raw.hex().upper(), base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        # bad ones
        "00" * n, "xyz", raw.hex()[:-2], base64.b64encode(raw + b"\x01").decode(),
    ] if rng.random() < 0.15 else [raw.hex(), raw.hex().upper(), base64.b64encode(raw).decode(),
                                   base64.urlsafe_b64encode(raw).decode().rstrip("=")])


def _any(rng: random.Random, depth: int = 0, unreadable: bool = False):
    if unreadable and rng.random() < 0.04:  # the span is rejected, even when a later repeat of the key wins
        return rng.choice([{"intValue": "1.5"}, {"intValue": "x"}, {"doubleValue": "abc"},
                           {"arrayValue": {"values": [{"intValue": "y"}]}}])
    kind = rng.choice(["s", "s", "s", "b", "i", "d", "bytes", "arr", "kv", "empty", "unknown"] if depth < 2
                      else ["s", "b", "i", "d"])
    if kind == "s":
        return {"stringValue": rng.choice(["x", "", "日本 ✓", 'quote " and \\ back', "line\nbreak", "{\"j\": 1}"])}
    if kind == "b":
        return {"boolValue": rng.choice([True, False, "true", "False"])}
    if kind == "i":
        return {"intValue": rng.choice([5, -3, "9007199254740993", "-12", " 7 ", 0])}
    if kind == "d":
        return {"doubleValue": rng.choice([1.5, 2, "NaN", "Infinity", "-Infinity", "0.25", 1e300, -0.0])}
    if kind == "bytes":
        return {"bytesValue": "AQI="}
    if kind == "arr":
        return {"arrayValue": {"values": [_any(rng, depth + 1) for _ in range(rng.randint(0, 3))]}}
    if kind == "kv":
        return {"kvlistValue": {"values": [{"key": f"k{i}", "value": _any(rng, depth + 1)} for i in range(rng.randint(0, 3))]}}
    if kind == "empty":
        return {}
    return {"futureValue": 1}


def _attrs(rng: random.Random, snake: bool, unreadable: bool = True) -> list:
    keys = ["gen_ai.operation.name", "user.id", "a", "b", "a"]  # "a" twice: the last value wins
    out = []
    for k in rng.sample(keys, rng.randint(0, len(keys))):
        v = _any(rng, unreadable=unreadable)
        if snake or rng.random() < 0.05:  # a snake_case value in a camelCase request, too
            v = {_snake(key): x for key, x in v.items()}
        out.append({"key": k, "value": v})
    if rng.random() < 0.05:
        out.append({"value": {"stringValue": "no key"}})
    return out


def _snake(name: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


def _span(rng: random.Random, snake: bool) -> dict:
    k = _snake if snake else (lambda x: x)
    span = {k("traceId"): _id(rng, 16), k("spanId"): _id(rng, 8), "name": rng.choice(["chat", "", "執行"])}
    if rng.random() < 0.7:
        span[k("parentSpanId")] = _id(rng, 8) if rng.random() < 0.9 else ""
    if rng.random() < 0.9:
        span["kind"] = rng.choice([1, 2, "3", "SPAN_KIND_SERVER", "span_kind_client", "SPAN_KIND_FUTURE", 9, ""])
    start = 1_794_000_000_000_000_000 + rng.randint(0, 10**12)
    if rng.random() < 0.9:
        span[k("startTimeUnixNano")] = rng.choice([start, str(start)])
    if rng.random() < 0.8:
        span[k("endTimeUnixNano")] = rng.choice([start + 5, str(start + 5), ""])
    span["attributes"] = _attrs(rng, snake)
    if rng.random() < 0.5:
        span["status"] = {"code": rng.choice([0, 1, 2, "STATUS_CODE_ERROR", "STATUS_CODE_OK", "2"]),
                          "message": rng.choice(["", "boom", "失敗"])}
    if rng.random() < 0.3:
        span["events"] = [{"name": rng.choice(["exception", "log"]),
                           k("timeUnixNano"): rng.choice([start + 1, str(start + 2)]),
                           "attributes": _attrs(rng, snake)} for _ in range(rng.randint(0, 2))]
    if rng.random() < 0.1:
        span["someFutureField"] = {"x": 1}
    return span


def random_request(rng: random.Random) -> dict:
    snake = rng.random() < 0.3
    k = _snake if snake else (lambda x: x)
    resource_spans = []
    for _ in range(rng.randint(1, 3)):
        scopes = []
        for _ in range(rng.randint(0, 2)):
            ss = {"spans": [_span(rng, snake) for _ in range(rng.randint(0, 4))]}
            if rng.random() < 0.8:
                ss["scope"] = {"name": rng.choice(["lib", ""]), "version": rng.choice(["1.0", None])}
            scopes.append(ss)
        # An unreadable resource attribute stops the Python walk's whole request; not compared.
        rs = {"resource": {"attributes": _attrs(rng, snake, unreadable=False)}}
        rs[k("instrumentationLibrarySpans") if rng.random() < 0.1 else k("scopeSpans")] = scopes
        resource_spans.append(rs)
    return {k("resourceSpans"): resource_spans}


def by_python(lines: list[str]) -> tuple[list[dict], list[tuple[int, str, str]]]:
    """(rows, errors as (line, stored text, reason)), line numbers from 1."""
    batch, errors = SpanBatch(), []
    for i, raw in enumerate(lines, 1):
        add_request(json.loads(raw), i, batch, errors)
    return _rows(batch.to_arrow()), errors


def by_duckdb(lines: list[str]) -> tuple[list[dict], list[tuple[int, str, str]]]:
    """As `by_python`, through `decode_requests` on a connection set up as the decoder's is."""
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET TimeZone = 'Asia/Shanghai'")  # as with --tz: times must still be read as UTC epochs
        con.execute("SET preserve_insertion_order = true")
        records = pa.table({"line": pa.array(range(1, len(lines) + 1), pa.int64()),
                            "raw": pa.array(lines, pa.string()),
                            "_extra": pa.array([False] * len(lines))})
        rows, errors = decode_requests(con, records)
    finally:
        con.close()
    return _rows(rows), errors


def _rows(table: pa.Table) -> list[dict]:
    rows = table.to_pylist()
    for r in rows:
        for c in JSON_COLUMNS:
            r[c] = None if r[c] is None else json.loads(r[c])
    return rows


@pytest.mark.parametrize("seed", range(12))
def test_duckdb_decoder_matches_the_python_walk(seed):
    rng = random.Random(seed)
    lines = [json.dumps(random_request(rng), ensure_ascii=rng.random() < 0.5) for _ in range(20)]
    want_rows, want_errors = by_python(lines)
    got_rows, got_errors = by_duckdb(lines)
    assert len(got_rows) == len(want_rows) and len(want_rows) > 0
    for got, want in zip(got_rows, want_rows):
        assert got == want
    # The same spans rejected (each stored with the same text), and for the same field.
    assert [(line, raw) for line, raw, _ in got_errors] == [(line, raw) for line, raw, _ in want_errors]
    for (_, _, got), (_, _, want) in zip(got_errors, want_errors):
        assert got.startswith("span rejected: ")
        field = next((f for f in ("traceId", "spanId", "parentSpanId") if f in want), None)
        assert field is None or field in got, (got, want)


def test_what_sdks_and_the_collector_write_is_read_by_the_lean_query_alone():
    # camelCase containers (the OTLP/JSON rule) must not be flagged for the full query: the
    # results would be the same, so only this catches every request being parsed twice.
    from google.protobuf.json_format import MessageToDict

    from test_otlp_support import finished_spans, request_of, sample_turns
    from trace_audit.ingest.read.otlp import json_sql

    lines = [json.dumps(MessageToDict(request_of(finished_spans([turn])))) for turn in sample_turns()]
    records = pa.table({"line": pa.array(range(1, len(lines) + 1), pa.int64()), "raw": pa.array(lines, pa.string())})
    con = duckdb.connect(":memory:")
    try:
        rows = json_sql._spans_of(con, "otlp_lean_spans", records)
    finally:
        con.close()
    assert rows.num_rows == sum(len(finished_spans([turn])) for turn in sample_turns())
    assert not any(rows.column("slow_").to_pylist()) and not any(rows.column("odd_").to_pylist())
    assert all(rows.column("ok_").to_pylist())


def test_rejections_say_which_field_and_why():
    good = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "ok"}
    spans = [good,
             {**good, "traceId": "not-an-id"},
             {**good, "spanId": "00" * 8},
             {**good, "spanId": None},
             {**good, "parentSpanId": "abcd"},
             {**good, "startTimeUnixNano": "soon"},
             {**good, "attributes": [{"key": "n", "value": {"intValue": "1.5"}}]}]
    lines = [json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})]
    rows, errors = by_duckdb(lines)
    assert [r["name"] for r in rows] == ["ok"]
    reasons = [reason for _, _, reason in errors]
    assert reasons == [
        "span rejected: traceId 'not-an-id' is neither hex nor base64",
        "span rejected: spanId is all zeros (invalid in OTLP)",
        "span rejected: traceId and spanId are required",
        "span rejected: parentSpanId 'abcd' is 3 bytes, expected 8 (hex or base64)",
        "span rejected: startTimeUnixNano 'soon' is not an integer",
        "span rejected: attribute 'n' has a value that cannot be read",
    ]


@pytest.mark.parametrize("doc, reason", [
    ({"resourceSpans": {"scopeSpans": []}}, "resourceSpans must be a JSON array"),
    ({"resourceSpans": None}, "no resourceSpans in this record"),
    ({"resourceSpans": ["text"]}, "resourceSpans[0] must be a JSON object"),
    ({"resourceSpans": [{"scopeSpans": "text"}]}, "resourceSpans[0].scopeSpans must be a JSON array"),
    ({"resourceSpans": [{"scopeSpans": [{"spans": {"traceId": "x"}}]}]},
     "resourceSpans[0].scopeSpans[0].spans must be a JSON array"),
])
def test_a_request_that_is_not_otlp_is_rejected_whole(doc, reason):
    good = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "kept"}]}]}]}
    bad = json.loads(json.dumps(doc))
    if isinstance(bad.get("resourceSpans"), list):  # good spans in the same request go too
        bad["resourceSpans"] = good["resourceSpans"] + bad["resourceSpans"]
        reason = reason.replace("resourceSpans[0]", "resourceSpans[1]")
    rows, errors = by_duckdb([json.dumps(good), json.dumps(bad)])
    assert [(r["name"], r["source_line"]) for r in rows] == [("kept", 1)]
    assert [(line, reason) for line, _, reason in errors] == [(2, f"OTLP trace request could not be read: {reason}")]


def test_a_rejected_span_is_quarantined_with_its_own_text():
    good = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "ok"}
    first = [good, {**good, "name": "bad-a", "traceId": "not-an-id"}]
    second = [{**good, "name": "bad-b", "spanId": "00" * 8}, good]
    lines = [json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": first}]}]}),
             json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": []}, {"spans": second}]}]})]
    rows, errors = by_duckdb(lines)
    assert len(rows) == 2
    assert [(line, json.loads(raw)["name"]) for line, raw, _ in errors] == [(1, "bad-a"), (2, "bad-b")]
