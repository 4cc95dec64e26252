"""Every kind of bad input: the good records around it load, the bad one is quarantined
with its file, line and a reason a person can act on, and nothing is lost or doubled."""

from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
import sys

import pytest

from test_ingest_support import (assert_every_line_accounted, audit, counts, error_lines, errors, message, query,
                                 step, stored_lines, task, write_jsonl)
from trace_audit.ingest.read import framing
from trace_audit.ingest.load import loader
from trace_audit.ingest.load.loader import ingest


def test_malformed_json_line_is_quarantined_and_neighbours_load(tmp_path, db_path):
    path = write_jsonl(tmp_path / "dump.jsonl", [task(1), step(1, 1), '{"id": 2, "task_id": 1, "seq": 2,,}',
                                                 step(1, 3), "not json at all"])
    summary = ingest([str(path)], db_path)
    assert summary.files[0].status == "loaded"
    assert counts(db_path) == {"tasks": 1, "steps": 2, "messages": 0, "audit_logs": 0, "ingest_errors": 2}
    assert [r[0] for r in query(db_path, "SELECT seq FROM steps ORDER BY seq")] == [1, 3]
    bad = error_lines(db_path, str(path))
    assert set(bad) == {3, 5}
    assert bad[3].startswith("malformed JSON") and "column" in bad[3]
    assert bad[5].startswith("malformed JSON")
    assert query(db_path, "SELECT raw FROM ingest_errors WHERE line = 3")[0][0] == '{"id": 2, "task_id": 1, "seq": 2,,}'
    assert_every_line_accounted(db_path, path)


def test_junk_line_whose_error_text_would_split_a_character(tmp_path, db_path):
    # DuckDB quotes a bad record in its error cut at a byte count; when the cut
    # falls inside a 4-byte character its Python client raised UnicodeDecodeError
    # instead of a DuckDB error, and the whole file failed (found by hypothesis).
    junk = "0000000000" + "\x80" * 6 + "\U00010000" * 7
    path = write_jsonl(tmp_path / "dump.jsonl", [task(1), junk, step(1, 1)])
    summary = ingest([str(path)], db_path)
    assert summary.files[0].status == "loaded", summary.files[0].message
    assert counts(db_path) == {"tasks": 1, "steps": 1, "messages": 0, "audit_logs": 0, "ingest_errors": 1}
    assert error_lines(db_path, str(path))[2].startswith("malformed JSON")
    assert_every_line_accounted(db_path, path)


def test_invalid_utf8_in_the_middle_of_a_multi_block_file(tmp_path, db_path, monkeypatch):
    # Small blocks make a modest file span many of them, so the bad byte sits
    # in a middle block whose other lines must still load.
    monkeypatch.setattr(framing, "BLOCK_BYTES", 16384)
    lines = [json.dumps(step(f"t{i // 3}", i % 3 + 1)).encode() for i in range(600)]
    lines[301] = lines[301].replace(b'"user asked"', b'"user \xff\xfe asked"')
    path = tmp_path / "steps.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    ingest([str(path)], db_path)
    assert counts(db_path)["steps"] == 599
    bad = error_lines(db_path, str(path))
    assert list(bad) == [302]
    assert bad[302].startswith("invalid UTF-8 at byte") and "must be UTF-8" in bad[302]
    assert_every_line_accounted(db_path, path)


def test_invalid_utf8_in_a_default_sized_block(tmp_path, db_path):
    lines = [json.dumps(step("t", i + 1)).encode() for i in range(5000)]
    lines[2500] = b'{"id": 9, "task_id": "t", "seq": 99999, "tool": "\xc3\x28"}'
    path = tmp_path / "steps.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    ingest([str(path)], db_path)
    assert counts(db_path)["steps"] == 4999
    assert list(error_lines(db_path, str(path))) == [2501]
    assert query(db_path, "SELECT count(*) FROM steps WHERE seq = 99999")[0][0] == 0


def test_invalid_utf8_inside_a_json_array_file(tmp_path, db_path):
    body = b"[\n" + b",\n".join([
        json.dumps(task(1)).encode(),
        b'{"id": 2, "goal": "caf\xe9", "status": "SUCCESS"}',  # latin-1, not UTF-8
        json.dumps(task(3)).encode(),
    ]) + b"\n]\n"
    path = tmp_path / "tasks.json"
    path.write_bytes(body)
    ingest([str(path)], db_path)
    assert [r[0] for r in query(db_path, "SELECT task_id FROM tasks ORDER BY task_id")] == ["1", "3"]
    bad = error_lines(db_path, str(path))
    assert list(bad) == [3] and "invalid UTF-8" in bad[3]


def test_truncated_last_line(tmp_path, db_path):
    text = "\n".join(json.dumps(step(1, i)) for i in (1, 2, 3))
    path = tmp_path / "cut.jsonl"
    path.write_text(text + "\n" + json.dumps(step(1, 4))[:40], encoding="utf-8")  # no newline, cut mid-record
    ingest([str(path)], db_path)
    assert counts(db_path)["steps"] == 3
    bad = error_lines(db_path, str(path))
    assert list(bad) == [4]
    assert bad[4].startswith("malformed JSON") and "truncated" in bad[4]


def test_truncated_gzip_keeps_what_was_readable(tmp_path, db_path):
    lines = "".join(json.dumps(step("t", i + 1)) + "\n" for i in range(20000))
    whole = gzip.compress(lines.encode(), compresslevel=1)
    path = tmp_path / "steps.jsonl.gz"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    summary = ingest([str(path)], db_path)
    assert summary.files[0].status == "loaded"
    n = counts(db_path)["steps"]
    assert 10000 < n < 20000
    # Every step up to the cut is there, in order, none twice.
    assert query(db_path, "SELECT min(seq), max(seq), count(DISTINCT seq) FROM steps")[0] == (1, n, n)
    reasons = [r for _, _, r in errors(db_path)]
    assert any("gzip stream is truncated" in r and "re-copy" in r for r in reasons)
    # The partial last line, if the cut fell inside one, is quarantined too.
    assert len(reasons) in (1, 2)


@pytest.mark.parametrize("junk, got", [("[1, 2, 3]", "an array"), ("42", "a number"), ('"just text"', "a string"),
                                       ("null", "null"), ("true", "true/false"), ("3.5", "a number")])
def test_non_object_lines(tmp_path, db_path, junk, got):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), junk, task(2)])
    ingest([str(path)], db_path)
    assert counts(db_path)["tasks"] == 2
    assert error_lines(db_path, str(path)) == {2: f"not a JSON object (got {got}); each record must be an object"}


def test_wrong_types_name_the_field_and_the_value(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", [
        step(1, 1),
        step(1, "abc"),
        step(1, 3, verified="maybe"),
        step(1, 4, create_time="yesterday"),
        task(5, total_steps="two"),
        step(1, 6, attempts=1.5),
        step(1, 99999999999),
        step(1, 8),
    ])
    ingest([str(path)], db_path)
    assert [r[0] for r in query(db_path, "SELECT seq FROM steps ORDER BY seq")] == [1, 8]
    assert counts(db_path)["tasks"] == 0
    bad = error_lines(db_path, str(path))
    assert bad[2] == "field seq: expected an integer (32-bit), got 'abc'"
    assert bad[3] == "field verified: expected true/false or 1/0, got 'maybe'"
    assert bad[4] == "field create_time: expected a timestamp (ISO 8601 or epoch seconds), got 'yesterday'"
    assert bad[5] == "field total_steps: expected an integer (32-bit), got 'two'"
    assert bad[6] == "field attempts: expected an integer (32-bit), got '1.5'"
    assert bad[7] == "field seq: expected an integer (32-bit), got '99999999999'"
    assert_every_line_accounted(db_path, path)


def test_several_problems_in_one_record_are_all_named(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", [step(1, "x", verified="maybe", create_time="soon")])
    ingest([str(path)], db_path)
    reason = error_lines(db_path, str(path))[1]
    assert "field seq" in reason and "field verified" in reason and "field create_time" in reason


def test_missing_required_keys(tmp_path, db_path):
    no_task = step(1, 2)
    del no_task["task_id"]
    no_seq = step(1, 3)
    del no_seq["seq"]
    no_id = task(4)
    del no_id["id"]
    empty_id = task(5, id="  ")
    null_seq = step(1, 6)
    null_seq["seq"] = None
    path = write_jsonl(tmp_path / "d.jsonl", [step(1, 1), no_task, no_seq, no_id, empty_id, null_seq, task(7)])
    ingest([str(path)], db_path)
    assert counts(db_path)["steps"] == 1 and counts(db_path)["tasks"] == 1
    bad = error_lines(db_path, str(path))
    # Without task_id a step no longer looks like a step: it is unrecognised, and the reason lists its fields.
    assert bad[2].startswith("unrecognised record: no known format has these fields (id, seq, tool")
    assert bad[3].startswith("unrecognised record")
    assert bad[4].startswith("unrecognised record")
    assert bad[5] == "required field id is empty"
    assert bad[6] == "missing required field seq"


def test_unknown_keys_are_kept_in_metadata(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", [step(1, 1, tenant="acme", trace={"k": [1, 2]})])
    ingest([str(path)], db_path)
    (meta,) = query(db_path, "SELECT metadata FROM steps")[0]
    assert json.loads(meta) == {"tenant": "acme", "trace": {"k": [1, 2]}}


def test_a_20_mb_line_is_quarantined_with_line_and_size(tmp_path, db_path):
    big = json.dumps(step(1, 2, reason="x" * (20 * 1024 * 1024)))
    path = write_jsonl(tmp_path / "d.jsonl", [step(1, 1), big, step(1, 3)])
    summary = ingest([str(path)], db_path)
    assert summary.files[0].status == "loaded"
    assert [r[0] for r in query(db_path, "SELECT seq FROM steps ORDER BY seq")] == [1, 3]
    reason = error_lines(db_path, str(path))[2]
    assert reason == "record is 20.0 MiB, over the 16 MiB limit (raise --max-record-mb to load it)"
    (raw,) = query(db_path, "SELECT raw FROM ingest_errors")[0]
    assert raw.startswith('{"id": 1002') and len(raw) <= framing.RAW_KEEP_CHARS + 1


def test_a_big_line_is_loaded_when_the_limit_is_raised(tmp_path, db_path):
    big = json.dumps(step(1, 2, reason="y" * (3 * 1024 * 1024)))
    path = write_jsonl(tmp_path / "d.jsonl", [step(1, 1), big])
    ingest([str(path)], db_path, max_record_bytes=4 * 1024 * 1024)
    assert query(db_path, "SELECT length(reason) FROM steps WHERE seq = 2")[0][0] == 3 * 1024 * 1024


def test_an_over_long_line_is_skipped_in_bounded_memory(tmp_path):
    """A 150 MB line is never held whole: peak RSS grows by a few read blocks, far less than the line."""
    def peak_rss(path) -> int:
        code = ("import resource, sys; from trace_audit.ingest.load.loader import ingest; "
                "s = ingest([sys.argv[1]], sys.argv[2]); assert s.files[0].status == 'loaded', s; "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code, str(path), str(path) + ".duckdb"],
                             capture_output=True, text=True, check=True)
        return int(out.stdout.strip()) * 1024

    small = write_jsonl(tmp_path / "small.jsonl", [step(1, 1), step(1, 3)])
    big = tmp_path / "big.jsonl"
    with open(big, "w") as fh:
        fh.write(json.dumps(step(1, 1)) + "\n")
        fh.write('{"id": 2, "task_id": 1, "seq": 2, "reason": "')
        chunk = "z" * (1024 * 1024)
        for _ in range(150):
            fh.write(chunk)
        fh.write('"}\n' + json.dumps(step(1, 3)) + "\n")
    grown = peak_rss(big) - peak_rss(small)
    assert grown < 4 * framing.BLOCK_BYTES, f"peak RSS grew by {grown / 2**20:.0f} MiB for a 150 MiB line"
    assert query(str(big) + ".duckdb", "SELECT line, reason FROM ingest_errors") == [
        (2, "record is 150.0 MiB, over the 16 MiB limit (raise --max-record-mb to load it)")]
    assert query(str(big) + ".duckdb", "SELECT count(*) FROM steps")[0][0] == 2


def test_blank_and_whitespace_lines_are_ignored(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", ["", task(1), "   ", "\t", " \t \r", task(2), ""])
    ingest([str(path)], db_path)
    assert counts(db_path)["ingest_errors"] == 0
    # Line numbers are physical lines of the file, blanks included.
    assert query(db_path, "SELECT task_id, source_line FROM tasks ORDER BY task_id") == [("1", 2), ("2", 6)]


def test_crlf_line_endings(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), "{oops", task(2), ""], newline="\r\n")
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id, source_line, goal FROM tasks ORDER BY 1") == [
        ("1", 1, "提醒我 1"), ("2", 3, "提醒我 2")]
    assert query(db_path, "SELECT line, raw FROM ingest_errors") == [(2, "{oops")]


def test_utf8_bom(tmp_path, db_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (json.dumps(task(1)) + "\n" + json.dumps(task(2)) + "\n").encode())
    ingest([str(path)], db_path)
    assert counts(db_path)["tasks"] == 2 and counts(db_path)["ingest_errors"] == 0


def test_a_file_holding_only_a_bom_is_empty(tmp_path, db_path):
    # Found by the hostile-input property test: the mark says how the file is encoded, it is
    # no record, so nothing is stored and nothing is quarantined; a second mark is content.
    only = tmp_path / "only-bom.jsonl"
    only.write_bytes(b"\xef\xbb\xbf\n")
    result = ingest([str(only)], db_path).files[0]
    assert result.status == "loaded" and result.errors == 0 and counts(db_path)["ingest_errors"] == 0
    twice = tmp_path / "two-boms.jsonl"
    twice.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf")
    assert ingest([str(twice)], db_path).files[0].errors == 1
    assert query(db_path, "SELECT line FROM ingest_errors") == [(1,)]


def test_missing_path_is_a_clear_error(tmp_path, db_path):
    good = write_jsonl(tmp_path / "good.jsonl", [task(1)])
    missing = str(tmp_path / "nope.jsonl")
    summary = ingest([missing, str(good)], db_path)
    assert [f.status for f in summary.files] == ["failed", "loaded"]
    assert summary.files[0].message == f"{missing}: no such file or directory"
    assert counts(db_path)["tasks"] == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_a_clear_error(tmp_path, db_path):
    path = write_jsonl(tmp_path / "secret.jsonl", [task(1)])
    path.chmod(0)
    summary = ingest([str(path)], db_path)
    assert summary.files[0].status == "failed"
    assert summary.files[0].message == f"{path}: permission denied (cannot read the file)"


def test_a_path_that_is_not_a_regular_file_is_a_clear_error(tmp_path, db_path):
    sock_path = tmp_path / "agent.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    try:
        summary = ingest([str(sock_path)], db_path)
    finally:
        sock.close()
    assert summary.files[0].status == "failed"
    assert summary.files[0].message == f"{sock_path}: not a regular file"


@pytest.mark.parametrize("staged", [False, True])
def test_directory_mixing_good_files_bad_lines_and_other_files(tmp_path, db_path, monkeypatch, staged):
    if staged:
        monkeypatch.setattr(loader, "STAGE_MIN_BYTES", 0)
    root = tmp_path / "dumps"
    (root / "2026-11" / "week45").mkdir(parents=True)
    tasks = write_jsonl(root / "agent_task.jsonl", [task(1), task(2), "{broken"])
    steps = write_jsonl(root / "2026-11" / "agent_step.jsonl", [step(1, 1), step(2, 1), step(2, "two")])
    audits = write_jsonl(root / "2026-11" / "week45" / "audit_logs.json", [audit(1), "[]", audit(2)])
    msgs = root / "2026-11" / "week45" / "messages.jsonl.gz"
    msgs.write_bytes(gzip.compress((json.dumps(message(1)) + "\n" + json.dumps(message(2)) + "\n").encode()))
    (root / "README.md").write_text("# not a trace\n")
    (root / "2026-11" / "export.csv").write_text("id,task\n1,2\n")
    (root / ".hidden.jsonl").write_text("{not even read\n")
    summary = ingest([str(root)], db_path)
    assert sorted(summary.skipped) == sorted([str(root / "README.md"), str(root / "2026-11" / "export.csv")])
    assert counts(db_path) == {"tasks": 2, "steps": 2, "messages": 2, "audit_logs": 2, "ingest_errors": 3}
    assert [(f, ln) for f, ln, _ in errors(db_path)] == sorted([
        (str(tasks), 3), (str(steps), 3), (str(audits), 2)])
    for path in (tasks, steps, audits):
        assert_every_line_accounted(db_path, path)
    assert stored_lines(db_path, str(msgs)) == [1, 2]
