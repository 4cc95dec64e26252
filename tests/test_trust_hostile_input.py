"""Hostile input through every reader path: no crash, memory bounded, every input line accounted for.

Each reader (canonical, seed-004 steps and tasks, seed-001, chat, OTLP/JSON) gets its own valid record
with one field replaced by something hostile (huge numbers, 2**70 ids, 1e400, wrong types, 10,000
levels of nesting, control characters), mixed with junk lines; the file must load with every non-blank
line either stored or quarantined. OTLP protobuf files and the receiver's request decoder get random
and mutated bytes. Gzip bombs and 100 MB lines are measured in a subprocess (peak RSS).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import random
import resource
import subprocess
import sys
import urllib.request
import uuid
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_ingest_support import nonblank_lines
from test_otlp_support import finished_spans, request_of, sample_turns
from trace_audit.ingest.read import framing
from trace_audit.ingest.load.loader import ingest
from trace_audit.ingest.receive.receiver import Receiver, ReceiverConfig
from trace_audit.ingest.receive.requests import SIGNALS, check
from trace_audit.ingest.receive.validate import Refused

REPO = Path(__file__).resolve().parent.parent
DEEP = 10_000
DEEP_ARRAY = "[" * DEEP + "]" * DEEP
DEEP_OBJECT = '{"a":' * DEEP + "1" + "}" * DEEP

BASES = {
    "canonical": {"record": "step", "task_id": "t-1", "seq": 1, "tool": "create_reminder", "args": {"content": "x"},
                  "status": "success", "verified": False, "attempts": 2, "error": "read-back mismatch"},
    "seed004_step": {"id": 1, "task_id": 5, "seq": 1, "tool": "create_reminder", "args_json": "{}",
                     "status": "SUCCESS", "verified": 1, "attempts": 1, "create_time": "2026-11-08 08:00:01"},
    "seed004_task": {"id": 5, "user_id": 7, "goal": "提醒我", "status": "SUCCESS", "total_steps": 1, "success_steps": 1,
                     "create_time": "2026-11-08 08:00:00"},
    "seed001": json.loads((REPO / "sample_data/seed001/traces.jsonl").open(encoding="utf-8").readline()),
    "chat": json.loads((REPO / "tests/fixtures/golden/chat/openai.jsonl").open(encoding="utf-8").readline()),
    "otlp": json.loads(gzip.open(REPO / "sample_data/otlp/month.otlp.jsonl.gz", "rt", encoding="utf-8").readline()),
}
TABLES = ("tasks", "steps", "messages", "audit_logs", "otel_spans")

# Hostile values as JSON text (some cannot be produced by json.dumps: 1e400, NaN).
hostile_value = st.one_of(
    st.sampled_from(["1e400", "-1e400", str(2**70), str(-2**70), str(2**64), "1e-400", "NaN", "-0",
                     "true", "null", "[]", "{}", '""', DEEP_ARRAY, DEEP_OBJECT, '"\\u0000"', '"\\ud800"',
                     '"\'; DROP TABLE steps; --"', '[1, {"a": [null]}]', '{"x": {"y": [1e308, -1e308]}}']),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(json.dumps),
    st.text(max_size=30).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                 lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
                 max_leaves=8).map(lambda v: json.dumps(v, ensure_ascii=False)),
)


def _with(base: dict, key: str, value_text: str) -> str:
    """The record with `key` set to the raw JSON text `value_text` (the key is added when new)."""
    marker = "\u0001HOSTILE\u0001"
    return json.dumps({**base, key: marker}, ensure_ascii=False).replace(json.dumps(marker), value_text)


@st.composite
def hostile_record(draw) -> str:
    name = draw(st.sampled_from(sorted(BASES)))
    base = BASES[name]
    key = draw(st.sampled_from(sorted(base) + ["zz_unknown"]))
    return _with(base, key, draw(hostile_value))


junk_line = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=40),
    st.sampled_from(["{", "}", "[]", "null", "{}", "[" * DEEP, '{"a":' * DEEP, "\x00\x01", "\ufeff{}", "1e400"]),
)

# One hostile record per file (two records of one key would rightly replace each other), among junk.
lines = st.tuples(hostile_record(), st.lists(junk_line, max_size=8), st.integers(0, 8)).map(
    lambda t: t[1][:t[2]] + [t[0]] + t[1][t[2]:])


def _accounted(con, path: Path) -> tuple[set[int], set[int]]:
    stored: set[int] = set()
    for t in TABLES:
        stored |= {r[0] for r in con.execute(f"SELECT source_line FROM {t} WHERE source_file = ?", [str(path)]).fetchall()}
    errors = {r[0] for r in con.execute("SELECT line FROM ingest_errors WHERE source_file = ?", [str(path)]).fetchall()}
    return stored, errors


def _spanless_request(line: bytes) -> bool:
    """An OTLP request holding no span at all: valid, and nothing to store (OTLP counts spans, not lines)."""
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError):
        return False
    rs = doc.get("resourceSpans", doc.get("resource_spans")) if isinstance(doc, dict) else None
    if not isinstance(rs, list) or not all(isinstance(r, dict) for r in rs):
        return False
    scopes = [s for r in rs for s in (r.get("scopeSpans") or r.get("scope_spans") or [])]
    return all(isinstance(s, dict) and not (s.get("spans") or []) for s in scopes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(items=lines, gz=st.booleans())
def test_every_reader_survives_hostile_fields_and_accounts_for_every_line(warehouse, items, gz):
    con, tmp = warehouse
    path = tmp / f"h-{uuid.uuid4().hex}.jsonl{'.gz' if gz else ''}"
    # A good first line keeps the layout JSON lines (a lone "[]" would be an empty array file).
    first = json.dumps({**BASES["canonical"], "task_id": path.name})
    data = "\n".join([first, *items]).encode("utf-8") + b"\n"
    path.write_bytes(gzip.compress(data) if gz else data)
    result = ingest([str(path)], con=con).files[0]
    assert result.status == "loaded", result.message
    stored, errors = _accounted(con, path)
    records = {n for n in nonblank_lines(data) if not _spanless_request(data.split(b"\n")[n - 1])}
    assert stored | errors == records
    assert result.errors == con.execute("SELECT count(*) FROM ingest_errors WHERE source_file = ?",
                                        [str(path)]).fetchall()[0][0]


@pytest.mark.parametrize("layout", ["first line", "array element", "pretty document", "malformed"])
def test_ten_thousand_levels_of_nesting_in_every_layout(tmp_path, layout):
    good = json.dumps(BASES["canonical"])
    text = {
        "first line": DEEP_ARRAY + "\n" + good + "\n",
        "array element": "[\n" + good + ",\n" + DEEP_OBJECT + "\n]\n",
        "pretty document": '{\n"resourceSpans":\n' + DEEP_ARRAY + "\n}\n",
        "malformed": "[" * DEEP + "\n" + good + "\n" + '{"a":' * DEEP + "\n",
    }[layout]
    path = tmp_path / "deep.json"
    path.write_text(text)
    result = ingest([str(path)], str(tmp_path / "w.duckdb")).files[0]
    assert result.status == "loaded" and result.errors >= 1
    assert any("nested too deeply" in r or "not a JSON object" in r or "trace request" in r
               for _, r in result.first_errors), result.first_errors


# ---- binary: random bytes, protobuf, the receiver's decoder ---------------------------------

VALID_PB = request_of(finished_spans(sample_turns()[:1])).SerializeToString()


def _mutated(data: bytes, rnd: random.Random, n: int) -> bytes:
    b = bytearray(data)
    for _ in range(n):
        op = rnd.randrange(3)
        i = rnd.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] = rnd.randrange(256)
        elif op == 1:
            b[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 8)))
        elif b:
            del b[i:i + rnd.randrange(1, 8)]
    return bytes(b)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=400), seed=st.integers(0, 2**32), flips=st.integers(0, 12))
def test_the_receiver_decoder_never_crashes(data, seed, flips):
    pb = _mutated(VALID_PB, random.Random(seed), flips)
    for ctype, body in (("application/x-protobuf", data), ("application/x-protobuf", pb),
                        ("application/json", data), ("application/json", pb),
                        ("application/json", _mutated(json.dumps(BASES["otlp"]).encode(), random.Random(seed), flips))):
        for signal in SIGNALS.values():  # traces and logs, through the check both transports call
            try:
                checked = check(signal, ctype, body)
            except Refused as r:
                assert r.code == 400 and r.message
            else:
                assert checked.kind in ("pb", "jsonl", "logs.pb", "logs.jsonl")
                assert checked.accepted >= 0 and checked.rejected >= 0
                assert bool(checked.records) == bool(checked.accepted)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=600), seed=st.integers(0, 2**32), flips=st.integers(0, 12),
       how=st.sampled_from(["raw", "single pb", "length-prefixed pb", "gzip"]))
def test_files_of_random_or_mutated_bytes_load_or_quarantine(warehouse, data, seed, flips, how):
    con, tmp = warehouse
    pb = _mutated(VALID_PB, random.Random(seed), flips)
    body = {"raw": data, "single pb": b"\x0a" + pb[1:] if pb else b"\x0a",
            "length-prefixed pb": len(pb).to_bytes(4, "big") + pb + data[:8],
            "gzip": gzip.compress(data)[: max(10, len(data))]}[how]
    path = tmp / f"b-{uuid.uuid4().hex}.bin"
    path.write_bytes(body)
    result = ingest([str(path)], con=con).files[0]
    assert result.status in ("loaded", "already_loaded"), result.message
    if how == "raw" and result.status == "loaded" and framing._looks_like_json_text(body[:65536]) \
            and not framing._looks_like_one_document(body[:65536]):
        stored, errors = _accounted(con, path)
        assert stored | errors == set(nonblank_lines(body))


# ---- gzip bombs and 100 MB lines, in a subprocess so peak RSS is this ingest's own ---------------

# VmHWM, not ru_maxrss: the latter keeps the forking parent's size across exec.
PEAK = ("import re, sys, json; from trace_audit.ingest.load.loader import ingest; "
        "f = ingest([sys.argv[1]], sys.argv[2]).files[0]; "
        "hwm = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) * 1024; "
        "print(json.dumps([f.status, f.errors, [r for _, r in f.first_errors], f.counts.get('steps', 0), hwm]))")


def _ingest_measured(path: Path) -> tuple[str, int, list[str], int, int]:
    out = subprocess.run([sys.executable, "-c", PEAK, str(path), str(path) + ".duckdb"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return tuple(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def baseline_rss(tmp_path_factory) -> int:
    path = tmp_path_factory.mktemp("base") / "small.jsonl"
    path.write_text(json.dumps(BASES["canonical"]) + "\n")
    return _ingest_measured(path)[4]


def _bomb(path: Path, unit: bytes, total_mb: int, head: bytes = b"") -> Path:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        f.write(c.compress(head))
        for _ in range(total_mb):
            f.write(c.compress(unit))
        f.write(c.flush())
    return path


@pytest.mark.parametrize("kind", ["one endless line", "newlines"])
def test_a_gzip_bomb_over_a_gigabyte_is_stopped_in_bounded_memory(tmp_path, baseline_rss, kind):
    unit = b"0" * (1 << 20) if kind == "one endless line" else b"\n" * (1 << 20)
    head = (json.dumps(BASES["canonical"]) + "\n").encode()
    path = _bomb(tmp_path / "bomb.jsonl.gz", unit, 1100, head)  # 1.1 GB inflated, ~1 MB on disk
    assert path.stat().st_size < 2 * 1024 * 1024
    status, errors, reasons, steps, peak = _ingest_measured(path)
    assert status == "loaded" and steps == 1
    assert any("decompression bomb" in r for r in reasons), reasons
    # A constant number of read blocks (inflate buffer, read, carry, cut, pieces), whatever the inflated size.
    assert peak - baseline_rss < 8 * framing.BLOCK_BYTES, f"peak RSS grew by {(peak - baseline_rss) >> 20} MiB"


def test_a_100_mb_line_in_a_gzip_file_is_quarantined_in_bounded_memory(tmp_path, baseline_rss):
    good = json.dumps(BASES["canonical"])
    noise = base64.b64encode(os.urandom(75 << 20)).decode()  # ~100 MB, incompressible: not a bomb
    path = tmp_path / "long.jsonl.gz"
    with gzip.open(path, "wt", compresslevel=1) as f:
        f.write(good + "\n" + '{"record": "step", "task_id": "t-2", "seq": 1, "tool": "' + noise + '"}\n'
                + good.replace('"seq": 1', '"seq": 2') + "\n")
    del noise
    status, errors, reasons, steps, peak = _ingest_measured(path)
    assert (status, errors, steps) == ("loaded", 1, 2)
    assert "over the 16 MiB limit" in reasons[0]
    assert peak - baseline_rss < 4 * framing.BLOCK_BYTES, f"peak RSS grew by {(peak - baseline_rss) >> 20} MiB"


def test_the_receiver_refuses_a_gzip_bomb_at_its_limit(tmp_path):
    r = Receiver(ReceiverConfig(db_path=str(tmp_path / "w.duckdb"), spool_dir=str(tmp_path / "spool"), port=0)).start()
    try:
        body = _bomb(tmp_path / "b.gz", b" " * (1 << 20), 1100).read_bytes()  # 1.1 GB of JSON whitespace
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        req = urllib.request.Request(f"{r.url}/v1/traces", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=60)
        assert err.value.code == 413
        assert "decompressed request is over" in json.loads(err.value.read())["message"]
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
        assert grown < 3 * r.config.max_bytes, f"peak RSS grew by {grown >> 20} MiB"
    finally:
        r.stop()
    assert r.spool.pending_bytes() == 0
