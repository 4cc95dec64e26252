"""Channels a value can reach storage or a terminal through, beside the warehouse's columns."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from test_ingest_support import audit, message, step, task
from test_otlp_support import protobuf_of_json

CLI = [sys.executable, "-c", "import sys; from trace_audit.cli.main import main; sys.exit(main())"]


def _open_files(fds: str) -> list[str]:
    """Where each open descriptor of a process points; one closed while we look is skipped."""
    links = []
    try:
        names = os.listdir(fds)
    except FileNotFoundError:  # the process has gone
        return links
    for fd in names:
        try:
            links.append(os.readlink(f"{fds}/{fd}"))
        except FileNotFoundError:  # closed between the listing and the look
            pass
    return links


def test_a_killed_ingest_of_stdin_leaves_no_copy_of_it(tmp_path):
    # Standard input is copied so it can be hashed and re-read; that copy holds the input before
    # redaction. It has no name at any moment, so SIGKILL mid-read leaves nothing behind.
    spool = tmp_path / "tmp"
    spool.mkdir()
    proc = subprocess.Popen(CLI + ["ingest", "-", "--db", str(tmp_path / "w.duckdb")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(spool)})
    try:
        secret = "alice.stdin@example.com"
        proc.stdin.write((json.dumps(task(1, goal=f"mail {secret}")) + "\n").encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        held = []
        while time.monotonic() < deadline and not held:  # wait until the copy is open and holds the line
            fds = f"/proc/{proc.pid}/fd"
            held = [link for link in _open_files(fds) if str(spool) in link]
            time.sleep(0.05)
        assert held, "the ingest never opened its copy of stdin"
        assert all("(deleted)" in h or "#" in h for h in held), held  # open, but with no name
        assert list(spool.iterdir()) == []
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
    assert list(spool.iterdir()) == []


def test_ingest_of_stdin_still_loads_and_dedupes(tmp_path):
    db_path = str(tmp_path / "w.duckdb")
    spool = tmp_path / "tmp"
    spool.mkdir()
    data = "\n".join(json.dumps(r) for r in [task(1), step(1, 1)]) + "\n"
    env = {**os.environ, "TMPDIR": str(spool)}
    for expected in ("loaded   <stdin>", "same content as <stdin>"):
        proc = subprocess.run(CLI + ["ingest", "-", "--db", db_path], input=data.encode(), capture_output=True,
                              env=env)
        assert proc.returncode == 0, proc.stderr
        assert expected in proc.stdout.decode()
    dry = subprocess.run(CLI + ["ingest", "-", "--redaction-report"], input=data.encode(), capture_output=True,
                         env=env)
    assert dry.returncode == 0, dry.stderr
    assert list(spool.iterdir()) == []  # the dry run used to leave its copy of stdin behind


# --- the grep test: no planted secret in any table, any CLI output or the Parquet export ----------

EMAIL = "planted.alice@example.org"
API_KEY = "sk-PLANTEDkey0123456789abcdefgh"
URL_TOKEN = "PLANTEDtok9876"  # as `?token=...` in a URL: the secret_assignment rule's value
CUSTOM = "EMP-31415X"         # only a configured pattern knows it
USER = "planted-user-4242"    # only pseudonymise_user_id hides it
ALWAYS = (EMAIL, API_KEY, URL_TOKEN)
CONFIG = """
[redaction]
pseudonymise_user_id = true
[[redaction.extra_patterns]]
name = "employee"
pattern = 'EMP-\\d{5}X'
"""
T0 = 1_794_000_000_000_000_000  # 2026-11-08, in ns: the same week as the seed-004 records


def seed004_lines() -> str:
    """Every seed-004 channel: free text, JSON args, an unknown role and audit result, values the
    reader quarantines with a reason that quotes them, and a line that is not a record at all."""
    records = [
        task(1, goal=f"remind {EMAIL} about {CUSTOM}", user_id=USER),
        step(1, 1, reason=f"used {API_KEY}", error=f"GET /cb?token={URL_TOKEN} failed",
             args_json=json.dumps({"to": EMAIL, "employee": CUSTOM})),
        message(1, role=EMAIL, content=f"sent to {EMAIL}", user_id=USER),
        audit(1, result=EMAIL, user_id=USER),
        task(2, create_time=EMAIL),             # quarantined: the reason quotes the value
        step(1, 2, attempts=API_KEY),           # quarantined likewise
    ]
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + f"\nnot a record {EMAIL} {API_KEY}\n"


def _attr(key: str, value: str) -> dict:
    return {"key": key, "value": {"stringValue": value}}


def otlp_request(trace_no: int) -> dict:
    """One agent turn whose span name, scope name and version carry the secrets too."""
    trace = f"{trace_no:032x}"
    agent = {"traceId": trace, "spanId": f"{trace_no:016x}", "name": f"GET /users/{EMAIL}?token={URL_TOKEN}",
             "kind": 2, "startTimeUnixNano": str(T0), "endTimeUnixNano": str(T0 + 3_000_000_000),
             "attributes": [
                 _attr("gen_ai.operation.name", "invoke_agent"), _attr("user.id", USER),
                 _attr("gen_ai.input.messages", json.dumps(
                     [{"role": "user", "parts": [{"type": "text", "content": f"mail {EMAIL} re {CUSTOM}"}]}])),
                 _attr("gen_ai.output.messages", json.dumps(
                     [{"role": "assistant", "parts": [{"type": "text", "content": f"done, key {API_KEY}"}]}])),
             ],
             "status": {"code": 2, "message": f"upstream said token={URL_TOKEN}"}}
    return {"resourceSpans": [{
        "resource": {"attributes": [_attr("service.name", "planted-bot"), _attr("enduser.id", USER)]},
        "scopeSpans": [{"scope": {"name": f"scope-of-{EMAIL}", "version": f"1.0+{API_KEY}"}, "spans": [agent]}]}]}


def _cli(*args: str, cwd, stdin: bytes | None = None) -> str:
    proc = subprocess.run(CLI + list(args), cwd=cwd, input=stdin, capture_output=True, timeout=120)
    assert proc.returncode in (0, 1), (args, proc.returncode, proc.stderr.decode())
    return proc.stdout.decode() + proc.stderr.decode()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _through_receiver(db_path: str, cwd, requests: list[tuple[str, bytes]], *extra: str) -> str:
    """POSTs each (content type, body) to a live `serve-otlp`, stops it (it loads what it holds)."""
    import urllib.request

    port = _free_port()
    proc = subprocess.Popen(CLI + ["serve-otlp", "--db", db_path, "--port", str(port), "--grpc-port",
                                   str(_free_port()), "--drain-interval", "0.2", *extra],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "serve-otlp did not start"
                time.sleep(0.1)
        for ctype, body in requests:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/traces", data=body,
                                         headers={"Content-Type": ctype})
            with urllib.request.urlopen(req, timeout=10) as resp:
                assert resp.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    return out.decode() + err.decode()


def _every_stored_text(db_path: str) -> dict[str, str]:
    """`table.column` -> every value of every VARCHAR and JSON column, joined."""
    from trace_audit.queries.warehouse import db

    con = db.connect(db_path, read_only=True)
    try:
        cols = con.execute("SELECT table_name, column_name FROM information_schema.columns "
                           "WHERE table_schema = 'main' AND data_type IN ('VARCHAR', 'JSON')").fetchall()
        return {f"{t}.{c}": "\n".join(str(v) for (v,) in con.execute(f'SELECT "{c}" FROM "{t}"').fetchall())
                for t, c in cols}
    finally:
        con.close()


def _every_parquet_text(folder) -> str:
    import pyarrow.parquet as pq

    texts = []
    for f in sorted(folder.rglob("*.parquet")):
        table = pq.read_table(f)
        texts.append(f"{f.relative_to(folder)} {table.schema.metadata}")
        texts += [str(v) for col in table.columns for v in col.to_pylist()]
    assert len(texts) > 4, "the export wrote nothing"
    return "\n".join(texts)


def _outputs(db_path: str, cwd) -> dict[str, str]:
    """What every read command prints about this warehouse, and the Parquet export."""
    from trace_audit.queries.warehouse import db

    out = {"rules run": _cli("rules", "run", "--db", db_path, cwd=cwd)}
    for fmt in ("table", "jsonl", "csv"):
        out[f"findings {fmt}"] = _cli("findings", "--db", db_path, "--format", fmt, cwd=cwd)
    for args in ((), ("--errors",), ("--json",), ("--errors", "--json")):
        out[f"stats {' '.join(args)}"] = _cli("stats", "--db", db_path, *args, cwd=cwd)
    con = db.connect(db_path, read_only=True)
    try:
        task_ids = [t for (t,) in con.execute("SELECT task_id FROM tasks ORDER BY 1").fetchall()]
    finally:
        con.close()
    for t in task_ids:
        out[f"explain {t}"] = _cli("explain", "--db", db_path, t, cwd=cwd)
    out["report"] = _cli("report", "--db", db_path, "--week", "2026-W45", cwd=cwd)
    parquet = cwd / "parquet"
    _cli("export", "--db", db_path, "--parquet", str(parquet), cwd=cwd)
    out["export --parquet"] = _every_parquet_text(parquet)
    return out


def _leaks(texts: dict[str, str], needles) -> list[tuple[str, str]]:
    return sorted((where, n) for where, text in texts.items() for n in needles if n in text)


def _ingest_inputs(tmp_path) -> tuple[list, list[tuple[str, bytes]]]:
    seed = tmp_path / "seed004.jsonl"
    seed.write_text(seed004_lines(), "utf-8")
    otlp_json = tmp_path / "otlp.json"
    otlp_json.write_text(json.dumps(otlp_request(1)), "utf-8")
    otlp_pb = tmp_path / "otlp.pb"
    otlp_pb.write_bytes(protobuf_of_json(otlp_request(2)))
    requests = [("application/json", json.dumps(otlp_request(3)).encode()),
                ("application/x-protobuf", protobuf_of_json(otlp_request(4)))]
    return [seed, otlp_json, otlp_pb], requests


@pytest.mark.parametrize("route", ["ingest", "receiver"])
@pytest.mark.parametrize("configured", [False, True], ids=["defaults", "config"])
def test_no_planted_secret_reaches_a_table_an_output_or_the_export(tmp_path, route, configured):
    files, requests = _ingest_inputs(tmp_path)
    db_path = str(tmp_path / "w.duckdb")
    printed: dict[str, str] = {}
    if configured:  # ingest is given --config; the receiver finds ./trace-audit.toml, its default
        (tmp_path / ("custom.toml" if route == "ingest" else "trace-audit.toml")).write_text(CONFIG, "utf-8")
    if route == "ingest":
        extra = ["--config", str(tmp_path / "custom.toml")] if configured else []
        for f in files:
            printed[f"ingest {f.name}"] = _cli("ingest", str(f), "--db", db_path, "--no-progress", *extra, cwd=tmp_path)
        stdin = seed004_lines().replace("remind", "stdin: remind").encode()
        printed["ingest -"] = _cli("ingest", "-", "--db", db_path, "--json", *extra, cwd=tmp_path, stdin=stdin)
        printed["ingest --redaction-report"] = _cli("ingest", *map(str, files), "--redaction-report", *extra,
                                                    cwd=tmp_path)
    else:
        printed["serve-otlp"] = _through_receiver(db_path, tmp_path, requests)
    stored = _every_stored_text(db_path)
    needles = ALWAYS + ((CUSTOM, USER) if configured else ())
    assert _leaks(stored, needles) == []
    assert _leaks(printed, needles) == []
    assert _leaks(_outputs(db_path, tmp_path), needles) == []
    # It was all there to find: the span name and scope, the role, the reasons hold tokens now.
    assert "«email:" in stored["otel_spans.name"] and "«secret_assignment:" in stored["otel_spans.name"]
    assert "«email:" in stored["otel_spans.scope_name"] and "«api_key:" in stored["otel_spans.scope_version"]
    if route == "ingest":
        assert "«email:" in stored["messages.role"] and "«email:" in stored["audit_logs.result"]
        assert "«email:" in stored["ingest_errors.reason"] and "«api_key:" in stored["ingest_errors.reason"]
    if configured:  # the configuration applies through the receiver as through ingest
        assert "«employee:" in stored["tasks.goal"] and "«user:" in stored["tasks.user_id"]
        assert USER not in stored["otel_spans.attributes"] and "«user:" in stored["otel_spans.attributes"]


def test_the_grep_finds_what_is_there_without_redaction(tmp_path):
    """The control: with redaction off the same scan finds every planted value in those channels."""
    files, _requests = _ingest_inputs(tmp_path)
    db_path = str(tmp_path / "w.duckdb")
    printed = {f.name: _cli("ingest", str(f), "--db", db_path, "--no-redaction", cwd=tmp_path) for f in files}
    stored = _every_stored_text(db_path)
    for column in ("otel_spans.name", "otel_spans.scope_name", "messages.role", "ingest_errors.reason",
                   "tasks.goal", "tasks.user_id"):
        assert EMAIL in stored[column] or USER in stored[column] or CUSTOM in stored[column], column
    assert API_KEY in stored["otel_spans.scope_version"] and URL_TOKEN in stored["otel_spans.name"]
    assert EMAIL in printed["seed004.jsonl"]  # the reasons the summary prints
    outputs = _outputs(db_path, tmp_path)
    assert {w for w, _n in _leaks(outputs, ALWAYS)} >= {"stats --errors", "export --parquet"}


def test_a_failed_file_message_is_redacted_as_it_is_printed_and_logged():
    # A file that fails whole reports the first line of the error, which may quote a value
    # (a conversion error); ingest prints it and the receiver logs it.
    from trace_audit.ingest.load.loader import _plain
    from trace_audit.ingest.redact.config import RedactionConfig
    from trace_audit.ingest.redact.redactor import Redactor

    exc = ValueError(f"Conversion Error: Could not convert string '{EMAIL}' to INT32\nLINE 1: ...")
    shown = _plain(exc, Redactor(RedactionConfig(), b"channels-test-key-0123456789"))
    assert EMAIL not in shown and shown.startswith("Conversion Error: Could not convert string '«email:")
    assert _plain(exc, None) == f"Conversion Error: Could not convert string '{EMAIL}' to INT32"
