"""Input layouts: stdin, gzip by magic bytes, JSON arrays, single documents, directory walks."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from test_ingest_support import (assert_every_line_accounted, counts, error_lines, message, query, step, task,
                                 write_jsonl)
from trace_audit.ingest.load.loader import ingest

CLI = [sys.executable, "-c", "import sys; from trace_audit.cli.main import main; sys.exit(main())"]


def test_stdin(tmp_path, db_path):
    data = "\n".join(json.dumps(r) for r in [task(1), step(1, 1), "oops"]) + "\n"
    proc = subprocess.run(CLI + ["ingest", "-", "--db", db_path], input=data.encode(), capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert counts(db_path) == {"tasks": 1, "steps": 1, "messages": 0, "audit_logs": 0, "ingest_errors": 1}
    assert query(db_path, "SELECT DISTINCT source_file FROM steps") == [("<stdin>",)]
    assert query(db_path, "SELECT source_file, line FROM ingest_errors") == [("<stdin>", 3)]
    assert "loaded   <stdin>" in proc.stdout.decode()
    # The same bytes again are recognised by their hash.
    again = subprocess.run(CLI + ["ingest", "-", "--db", db_path], input=data.encode(), capture_output=True)
    assert "same content as <stdin>" in again.stdout.decode()
    assert counts(db_path)["steps"] == 1


def test_gzip_is_recognised_by_magic_bytes_whatever_the_name(tmp_path, db_path):
    body = (json.dumps(task(1)) + "\n" + json.dumps(task(2)) + "\n").encode()
    named_plain = tmp_path / "tasks.jsonl"  # gzip bytes behind a plain name
    named_plain.write_bytes(gzip.compress(body))
    odd_name = tmp_path / "export.data"
    odd_name.write_bytes(gzip.compress((json.dumps(task(3)) + "\n").encode()))
    not_gzip = tmp_path / "plain.jsonl.gz"  # a .gz name on plain text
    not_gzip.write_bytes((json.dumps(task(4)) + "\n").encode())
    ingest([str(named_plain), str(odd_name), str(not_gzip)], db_path)
    assert query(db_path, "SELECT task_id, source_file, source_line FROM tasks ORDER BY 1") == [
        ("1", str(named_plain), 1), ("2", str(named_plain), 2), ("3", str(odd_name), 1), ("4", str(not_gzip), 1)]


def test_concatenated_gzip_members(tmp_path, db_path):
    path = tmp_path / "rotated.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(task(1)) + "\n").encode())
                     + gzip.compress((json.dumps(task(2)) + "\n").encode()))
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id, source_line FROM tasks ORDER BY 1") == [("1", 1), ("2", 2)]


def test_json_array_file_with_line_numbers_of_each_element(tmp_path, db_path):
    path = tmp_path / "tasks.json"
    path.write_text("[\n" + json.dumps(task(1), indent=2) + ",\n" + json.dumps(task(2)) + ",\n  42,\n"
                    + json.dumps(step(1, 1)) + "\n]\n", encoding="utf-8")
    ingest([str(path)], db_path)
    first_len = len(json.dumps(task(1), indent=2).splitlines())
    assert query(db_path, "SELECT task_id, source_line FROM tasks ORDER BY 1") == [("1", 2), ("2", 2 + first_len)]
    assert query(db_path, "SELECT seq, source_line FROM steps") == [(1, 4 + first_len)]
    assert error_lines(db_path, str(path)) == {
        3 + first_len: "not a JSON object (got a number); each record must be an object"}


def test_json_array_cut_short(tmp_path, db_path):
    path = tmp_path / "tasks.json"
    path.write_text("[" + json.dumps(task(1)) + ",\n" + json.dumps(task(2)) + ",\n" + json.dumps(task(3))[:30],
                    encoding="utf-8")
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id FROM tasks ORDER BY 1") == [("1",), ("2",)]
    (reason,) = error_lines(db_path, str(path)).values()
    assert reason.startswith("invalid JSON in array element") and "no readable element followed" in reason


def test_single_pretty_printed_object(tmp_path, db_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(message(5, content="多行\n内容"), indent=4, ensure_ascii=False) + "\n", encoding="utf-8")
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT message_id, content, source_line FROM messages") == [("5", "多行\n内容", 1)]


def test_jsonl_whose_first_line_is_broken_is_still_read_as_lines(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", ['{"id": 1, "goal": ', task(2), task(3)])
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id FROM tasks ORDER BY 1") == [("2",), ("3",)]
    assert list(error_lines(db_path, str(path))) == [1]


def test_jsonl_starting_with_blank_lines_is_not_taken_for_protobuf(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", ["", "", task(1)])
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id, source_line FROM tasks") == [("1", 3)]
    assert counts(db_path)["ingest_errors"] == 0


def test_directories_are_walked_recursively_and_marked_ones_skipped(tmp_path, db_path):
    root = tmp_path / "traces"
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "otlp-copy").mkdir()
    deep = write_jsonl(root / "a" / "b" / "c" / "deep.jsonl", [task(1)])
    top = write_jsonl(root / "top.ndjson", [task(2)])
    write_jsonl(root / "otlp-copy" / "dup.jsonl", [task(3)])
    (root / "otlp-copy" / ".trace-audit-ignore").write_text("")
    (root / "__pycache__").mkdir()
    write_jsonl(root / "__pycache__" / "x.jsonl", [task(4)])
    summary = ingest([str(root)], db_path)
    assert sorted(f.path for f in summary.files) == sorted([str(deep), str(top)])
    assert query(db_path, "SELECT task_id FROM tasks ORDER BY 1") == [("1",), ("2",)]
    # Named explicitly, a marked directory is read.
    ingest([str(root / "otlp-copy")], db_path)
    assert query(db_path, "SELECT task_id FROM tasks ORDER BY 1") == [("1",), ("2",), ("3",)]


def test_large_mixed_file_keeps_every_line(tmp_path, db_path):
    records = []
    for i in range(3000):
        records += [task(i), step(i, 1), step(i, 2, verified=0), message(i, task_id=i)]
        if i % 97 == 0:
            records += ["{bad", "", step(i, "x")]
    path = write_jsonl(tmp_path / "mixed.jsonl", records)
    ingest([str(path)], db_path)
    assert counts(db_path) == {"tasks": 3000, "steps": 6000, "messages": 3000, "audit_logs": 0,
                               "ingest_errors": 2 * 31}
    assert_every_line_accounted(db_path, path)


def test_jsonl_whose_first_line_is_an_array_is_read_as_lines(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", ["[1, 2]", task(1), task(2)])
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id FROM tasks ORDER BY 1") == [("1",), ("2",)]
    assert list(error_lines(db_path, str(path))) == [1]


def test_one_line_json_array_is_a_document(tmp_path, db_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([task(1), task(2)]), encoding="utf-8")
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id, source_line FROM tasks ORDER BY 1") == [("1", 1), ("2", 1)]


def test_text_after_a_json_array_is_reported_not_dropped(tmp_path, db_path):
    path = tmp_path / "runs.json"
    path.write_text("[\n" + json.dumps(task(1)) + "\n]\n" + json.dumps(task(2)) + "\n", encoding="utf-8")
    ingest([str(path)], db_path)
    assert query(db_path, "SELECT task_id FROM tasks") == [("1",)]
    assert error_lines(db_path, str(path)) == {
        4: "text after the end of the JSON array was not read; put one JSON document in a file, or write JSON lines"}


def test_a_syntax_error_in_a_json_array_loses_only_that_element(tmp_path, db_path):
    """10,000 elements, one broken: 9,999 stored, 1 quarantined with its byte range, none in neither."""
    for name, indent in (("one-line.json", None), ("pretty.json", 2)):
        path = tmp_path / name
        text = json.dumps([task(i) for i in range(10_000)], indent=indent)
        broken = text.replace('"id": 5000,', '"id": 5000 oops,', 1)
        assert broken != text
        path.write_text(broken, encoding="utf-8")
        ingest([str(path)], db_path)
        assert query(db_path, "SELECT count(*) FROM tasks WHERE task_id <> '5000'")[0][0] == 9_999
        assert query(db_path, "SELECT count(*) FROM tasks WHERE task_id = '5000'")[0][0] == 0
        (reason,) = error_lines(db_path, str(path)).values()
        assert "reading went on at the next element" in reason and " could not be read" in reason
        a, b = map(int, reason.split("bytes ", 1)[1].split(" ", 1)[0].split("-"))
        assert '5000 oops' in broken.encode()[a:b].decode() and b - a < 400


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize("warehouse_state", ["empty", "non-empty"])
def test_the_last_record_of_a_key_wins_whatever_the_file_shape(tmp_path, db_path, monkeypatch, staged,
                                                               warehouse_state):
    from trace_audit.ingest.load import loader

    if staged:  # a big file's path: rows staged in temp tables first
        monkeypatch.setattr(loader, "STAGE_MIN_BYTES", 0)
    if warehouse_state == "non-empty":
        (tmp_path / "seed.jsonl").write_text(json.dumps(task(99)) + "\n")
        ingest([str(tmp_path / "seed.jsonl")], db_path)
    shapes = {
        "one-line.json": lambda rs: json.dumps(rs),
        "pretty.json": lambda rs: json.dumps(rs, indent=2),
        "lines.jsonl": lambda rs: "".join(json.dumps(r) + "\n" for r in rs),
        "one-line-lines.jsonl": lambda rs: json.dumps(rs) + "\n",
    }
    for i, (name, write) in enumerate(shapes.items()):
        (tmp_path / name).write_text(write([task(i, goal="first"), task(i, goal="middle"), task(i, goal="last")]))
        ingest([str(tmp_path / name)], db_path)
    got = dict(query(db_path, "SELECT task_id, goal FROM tasks WHERE task_id <> '99'"))
    assert got == {str(i): "last" for i in range(len(shapes))}
