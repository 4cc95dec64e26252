"""trace_audit.task_id: an OTLP turn takes the id the user's other systems give it.

The id comes from the task span, else from the turn's other spans (so a running turn
built from orphan children already has it); a turn whose id changes leaves no stale
rows; two turns claiming one id never give duplicate keys: the earlier turn keeps it,
whatever order the spans were loaded in.
"""

from __future__ import annotations

import json

from test_otlp_files import _doc, _span, load, q

S = 1_794_000_000_000_000_000
A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
HEAD = "1000000000000001"


def _tool(trace: str, sid: str, start: int, **attrs) -> dict:
    return _span(trace, sid, HEAD, "execute_tool create_reminder", start + 1_000_000, start + 2_000_000,
                 {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "create_reminder",
                  "gen_ai.tool.call.result": '{"success": true}', **attrs})


def _agent(trace: str, start: int, **attrs) -> dict:
    return _span(trace, HEAD, None, "invoke_agent planner", start, start + 9_000_000,
                 {"gen_ai.operation.name": "invoke_agent", "gen_ai.output.messages": json.dumps(
                     [{"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}]), **attrs})


def _write(tmp_path, name: str, *spans) -> str:
    path = tmp_path / name
    path.write_text(_doc(*spans))
    return str(path)


def _state(w: str) -> tuple:
    """Tasks (id, status, claim, why it was refused), steps (task, seq), messages (task): keys unique."""
    tasks = q(w, "SELECT task_id, status, metadata->>'claimed_task_id', metadata->>'task_id_clash' FROM tasks "
                 "ORDER BY task_id")
    steps = q(w, "SELECT task_id, seq FROM steps ORDER BY ALL")
    messages = q(w, "SELECT message_id, task_id FROM messages ORDER BY ALL")
    assert len({t[0] for t in tasks}) == len(tasks) and len(set(steps)) == len(steps)
    assert {s[0] for s in steps} <= {t[0] for t in tasks} and {m[1] for m in messages} <= {t[0] for t in tasks}
    return tasks, steps, messages


def test_the_running_turn_and_the_completed_one_have_the_same_business_id(tmp_path):
    w = str(tmp_path / "w.duckdb")
    load(w, _write(tmp_path, "1.json", _tool(A, "2000000000000001", S, **{"trace_audit.task_id": "T-42"})))
    assert _state(w) == ([("T-42", "running", "T-42", None)], [("T-42", 1)], [])
    load(w, _write(tmp_path, "2.json", _agent(A, S, **{"trace_audit.task_id": "T-42"})))
    assert _state(w) == ([("T-42", "success", "T-42", None)], [("T-42", 1)], [("T-42:assistant", "T-42")])


def test_an_id_that_comes_with_the_task_span_leaves_no_stale_rows(tmp_path):
    w = str(tmp_path / "w.duckdb")
    load(w, _write(tmp_path, "1.json", _tool(A, "2000000000000001", S)))
    assert _state(w)[0] == [(A, "running", None, None)]
    load(w, _write(tmp_path, "2.json", _agent(A, S, **{"trace_audit.task_id": 42})))  # an int id is an id
    assert _state(w) == ([("42", "success", "42", None)], [("42", 1)], [("42:assistant", "42")])


def test_the_task_spans_id_wins_over_its_childrens(tmp_path):
    w = str(tmp_path / "w.duckdb")
    load(w, _write(tmp_path, "1.json", _tool(A, "2000000000000001", S, **{"trace_audit.task_id": "T-7"})))
    load(w, _write(tmp_path, "2.json", _agent(A, S, **{"trace_audit.task_id": "T-8"})))
    assert _state(w)[:2] == ([("T-8", "success", "T-8", None)], [("T-8", 1)])
    # Without an id of its own, the task span's turn keeps its children's.
    load(w, _write(tmp_path, "3.json", _agent(A, S)))
    assert _state(w)[:2] == ([("T-7", "success", "T-7", None)], [("T-7", 1)])


def _clash_files(tmp_path) -> list[str]:
    return [_write(tmp_path, "a.json", _agent(A, S, **{"trace_audit.task_id": "T-1"}),
                   _tool(A, "2000000000000001", S)),
            _write(tmp_path, "b.json", _agent(B, S + 10**9, **{"trace_audit.task_id": "T-1"}),
                   _tool(B, "3000000000000001", S + 10**9))]


def test_two_turns_claiming_one_id_the_earlier_keeps_it_in_any_load_order(tmp_path):
    expected = ([("T-1", "success", "T-1", None),
                 (B, "success", "T-1", f"claimed by an earlier turn (trace {A}, task span {HEAD})")],
                [("T-1", 1), (B, 1)], [("T-1:assistant", "T-1"), (B + ":assistant", B)])
    a, b = _clash_files(tmp_path)
    for name, order in (("ab", [a, b]), ("ba", [b, a]), ("together", None)):
        w = str(tmp_path / f"{name}.duckdb")
        if order is None:
            load(w, _write(tmp_path, "both.json", *(json.loads(open(p).read())["resourceSpans"][0]["scopeSpans"][0]
                                                    ["spans"][i] for p in (b, a) for i in (0, 1))))
        else:
            for path in order:
                load(w, path)
        assert _state(w) == expected, name


def test_when_the_holder_gives_the_id_up_the_next_claimant_takes_it(tmp_path):
    w = str(tmp_path / "w.duckdb")
    load(w, *_clash_files(tmp_path))
    # Trace A's task span is re-sent with another id: B (not in this load) now holds T-1.
    load(w, _write(tmp_path, "a2.json", _agent(A, S, **{"trace_audit.task_id": "T-2"})))
    assert _state(w)[0] == [("T-1", "success", "T-1", None), ("T-2", "success", "T-2", None)]
    assert q(w, "SELECT task_id, metadata->>'trace_id' FROM tasks ORDER BY 1") == [("T-1", B), ("T-2", A)]


def test_two_turns_of_one_trace_claiming_one_id(tmp_path):
    w = str(tmp_path / "w.duckdb")
    second = "1000000000000002"
    later = _span(A, second, None, "invoke_agent planner", S + 10**9, S + 2 * 10**9,
                  {"gen_ai.operation.name": "invoke_agent", "trace_audit.task_id": "T-1"})
    load(w, _write(tmp_path, "1.json", _agent(A, S, **{"trace_audit.task_id": "T-1"}), later))
    assert _state(w)[0] == [("T-1", "success", "T-1", None),
                            (f"{A}:{second}", "success", "T-1", f"claimed by an earlier turn (trace {A}, task span {HEAD})")]


def test_an_id_held_by_another_source_or_shaped_like_a_trace_id_is_refused(tmp_path):
    w = str(tmp_path / "w.duckdb")
    (tmp_path / "agent_task.jsonl").write_text(json.dumps({
        "id": 10001, "user_id": 1104, "conversation_id": "c-1", "goal": "gym", "status": "SUCCESS", "total_steps": 0,
        "success_steps": 0, "replanned": 0, "create_time": "2026-11-02 00:59:12",
        "finish_time": "2026-11-02 00:59:14", "agent_version": "2.3.0", "model": "m", "prompt_version": "p"}) + "\n")
    load(w, tmp_path / "agent_task.jsonl")
    (source,) = q(w, "SELECT source FROM tasks")[0]
    load(w, _write(tmp_path, "1.json", _agent(A, S, **{"trace_audit.task_id": "10001"}),
                   _agent(B, S, **{"trace_audit.task_id": A})))
    assert _state(w)[0] == [("10001", "success", None, None),
                            (A, "success", "10001", f"held by a {source} task"),
                            (B, "success", A, "names another turn of a stored trace")]


def test_a_hex_id_is_an_id_until_a_trace_of_that_id_arrives(tmp_path):
    """uuid4().hex ids have the shape of a trace id: used, unless a stored trace has that id;
    a trace that arrives later takes its own id back, in either load order."""
    claim_a = _write(tmp_path, "b.json", _agent(B, S, **{"trace_audit.task_id": A}))
    trace_a = _write(tmp_path, "a.json", _agent(A, S + 10**9), _tool(A, "2000000000000001", S + 10**9))
    w = str(tmp_path / "w.duckdb")
    load(w, claim_a)
    assert _state(w)[0] == [(A, "success", A, None)]
    assert q(w, "SELECT metadata->>'trace_id' FROM tasks") == [(B,)]
    expected = ([(A, "success", None, None), (B, "success", A, "names another turn of a stored trace")],
                [(A, 1)], [(A + ":assistant", A), (B + ":assistant", B)])
    load(w, trace_a)
    assert _state(w) == expected
    w2 = str(tmp_path / "w2.duckdb")
    load(w2, trace_a)
    load(w2, claim_a)
    assert _state(w2) == expected
