"""The committed sample month (sample_data/) and its generator.

Everything is checked from the written files, independently of the generator's own code,
except where the test is about the generator itself (determinism, --scale).
"""

from __future__ import annotations

import csv
import datetime as dt
import filecmp
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"
GENERATOR = SAMPLE / "generate.py"
DATA_FILES = [
    "seed004/agent_task.jsonl", "seed004/agent_step.jsonl", "seed004/audit_logs.jsonl",
    "seed004/messages.jsonl", "seed001/traces.jsonl", "labels/turn_labels.csv",
]
KINDS = [  # every kind of turn the brief asks for; each must appear >= 10 times
    "ok", "not_executed", "failed_write", "unverified", "not_created", "partial", "honest", "clarify",
    "embedded_claim", "duplicate_write", "stuck_running", "audit_mismatch", "repeated_failure",
    "sentinel_ok", "sentinel_fixed", "sentinel_contradiction", "sentinel_ignored", "verify_rounds_exceeded",
    "tool_loop", "max_tool_calls", "forbidden_tool", "argument_bounds", "replanned",
    # issue 15: claimed actions and claimed / asked values, with their honest look-alikes
    "claimed_action_missing", "claimed_actions_done", "reply_value_wrong", "args_value_wrong",
    "value_stated_ok", "honest_wrong_stored",
]
NOW_UTC = dt.datetime(2026, 11, 29, 16, 0, 0)  # --now 2026-11-30T00:00:00+08:00


def run_generator(out: Path, *args: str) -> None:
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(out), *args], check=True,
                   capture_output=True, timeout=300)


def jsonl(path: Path) -> list:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fresh")
    run_generator(out)
    return out


@pytest.fixture(scope="module")
def labels() -> list:
    with open(SAMPLE / "labels/turn_labels.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def dump() -> dict:
    return {name: jsonl(SAMPLE / "seed004" / f"{name}.jsonl")
            for name in ("agent_task", "agent_step", "audit_logs", "messages")}


@pytest.fixture(scope="module")
def traces() -> list:
    return jsonl(SAMPLE / "seed001/traces.jsonl")


def test_same_seed_gives_identical_bytes(tmp_path, fresh):
    other = tmp_path / "again"
    run_generator(other)
    for name in DATA_FILES:
        assert (fresh / name).read_bytes() == (other / name).read_bytes(), name


def test_other_seed_gives_other_data(tmp_path, fresh):
    run_generator(tmp_path, "--seed", "5")
    assert (tmp_path / "seed004/agent_step.jsonl").read_bytes() != (fresh / "seed004/agent_step.jsonl").read_bytes()


def test_committed_files_equal_a_fresh_generation(fresh):
    for name in DATA_FILES:
        assert (SAMPLE / name).exists(), f"{name} is not committed"
        assert filecmp.cmp(SAMPLE / name, fresh / name, shallow=False), \
            f"{name} differs from `python sample_data/generate.py --out sample_data`: regenerate and commit"


def test_size_and_volume(dump, traces, labels):
    total = sum((SAMPLE / n).stat().st_size for n in DATA_FILES)
    assert 2_000_000 < total < 10_000_000
    assert 2700 <= len(labels) <= 3300
    assert 400 <= len(traces) <= 600
    users = {r["user_id"] for r in labels if r["source"] == "seed004"}
    assert 100 <= len(users) <= 160
    # users come back across conversations, conversations have several turns
    conv_per_user = defaultdict(set)
    turns_per_conv = Counter()
    for r in labels:
        if r["source"] == "seed004":
            conv_per_user[r["user_id"]].add(r["conversation_id"])
            turns_per_conv[r["conversation_id"]] += 1
    assert sum(1 for c in conv_per_user.values() if len(c) >= 3) > 50
    assert sum(1 for n in turns_per_conv.values() if n >= 3) > 100


def test_every_label_task_exists(labels, dump, traces):
    task_ids = {str(t["id"]) for t in dump["agent_task"]}
    trace_ids = {t["task_id"] for t in traces}
    reply_ids = {str(m["id"]): m for m in dump["messages"] if m["role"] == "assistant"}
    for r in labels:
        if r["task_id"]:
            assert r["task_id"] in (task_ids if r["source"] == "seed004" else trace_ids), r
        if r["reply_message_id"]:
            m = reply_ids[r["reply_message_id"]]
            assert m["conversation_id"] == r["conversation_id"] and str(m["user_id"]) == r["user_id"]
    labelled = {r["task_id"] for r in labels if r["task_id"]}
    assert task_ids | trace_ids == labelled  # and every task has its label row


def test_timestamps_inside_the_month(dump, traces):
    lo, hi = "2026-11-02 00:00:00", "2026-11-29 23:59:59"
    for table in dump.values():
        for row in table:
            for key in ("create_time", "finish_time"):
                if row.get(key) is not None:
                    assert lo <= row[key] <= hi, row
    start = dt.datetime(2026, 11, 1, 16, tzinfo=dt.timezone.utc).timestamp()
    end = dt.datetime(2026, 11, 29, 16, tzinfo=dt.timezone.utc).timestamp()
    for t in traces:
        for c in t["tool_calls"]:
            assert start <= c["start_time"] <= c["end_time"] < end


def test_incident_jumps_in_w47_and_agent_2_4_0(dump):
    version = {t["id"]: t["agent_version"] for t in dump["agent_task"]}
    by_week = defaultdict(lambda: [0, 0])
    by_version = defaultdict(lambda: [0, 0])
    tz_errors = 0
    for s in dump["agent_step"]:
        if s["tool"] != "create_reminder" or s["status"] != "SUCCESS":
            continue
        week = dt.date.fromisoformat(s["create_time"][:10]).isocalendar()[1]
        for bucket in (by_week[week], by_version[version[s["task_id"]]]):
            bucket[0] += 1
            bucket[1] += s["verified"] == 0
        if s["error"] and s["error"].startswith("read-back mismatch: remind_at differs"):
            tz_errors += 1
    rate = {k: v[1] / v[0] for k, v in by_week.items()}
    assert sorted(rate) == [45, 46, 47, 48]
    assert rate[45] < 0.05 and rate[46] < 0.05
    assert 0.18 < rate[47] < 0.35 and 0.18 < rate[48] < 0.35
    vrate = {k: v[1] / v[0] for k, v in by_version.items()}
    assert vrate["2.3.0"] < 0.05 < 0.18 < vrate["2.4.0"]
    # the error texts differ per row (numbers vary) but share one shape
    texts = {s["error"] for s in dump["agent_step"] if s["error"] and "remind_at differs" in s["error"]}
    assert tz_errors > 100 and len(texts) > 50
    # agent 2.4.0 is exactly the turns from Monday 2026-11-16
    for t in dump["agent_task"]:
        assert t["agent_version"] == ("2.4.0" if t["create_time"] >= "2026-11-16" else "2.3.0")


def test_every_kind_appears_and_both_languages(labels):
    kinds = Counter(r["scenario"] for r in labels)
    for kind in KINDS:
        assert kinds[kind] >= 10, (kind, kinds[kind])
    langs = Counter(r["lang"] for r in labels)
    assert 0.5 < langs["zh"] / len(labels) < 0.7 and langs["en"] > 0.3 * len(labels)
    sbnd = Counter(r["sbnd"] for r in labels)
    for kind in ("not_executed", "failed", "unverified", "not_created", "partial"):
        assert sbnd[kind] >= 10, kind


def test_labels_agree_with_the_dump(labels, dump):
    """Re-derive the data-only rules from the files and compare with expected_rules."""
    steps = defaultdict(list)
    for s in dump["agent_step"]:
        steps[s["task_id"]].append(s)
    tasks = {t["id"]: t for t in dump["agent_task"]}
    for r in labels:
        if r["source"] != "seed004" or not r["task_id"]:
            continue
        tid = int(r["task_id"])
        ss = sorted(steps[tid], key=lambda s: s["seq"])
        rules = set(filter(None, r["expected_rules"].split(";")))
        t = tasks[tid]
        assert [s["seq"] for s in ss] == list(range(1, len(ss) + 1)) and t["total_steps"] == len(ss)
        assert ("verified_false" in rules) == any(s["status"] == "SUCCESS" and s["verified"] == 0 for s in ss)
        assert ("repeated_failure" in rules) == any(
            s["attempts"] >= 2 and s["status"] == "FAILED" and s["error"] for s in ss)
        started = dt.datetime.fromisoformat(t["create_time"]) - dt.timedelta(hours=8)
        stuck = t["status"] == "RUNNING" and t["finish_time"] is None and started < NOW_UTC - dt.timedelta(minutes=15)
        assert ("stuck_running" in rules) == stuck
        assert ("max_tool_calls" in rules) == (len(ss) > 10)
        if t["replanned"]:
            assert r["scenario"] == "replanned"


ACTION = {"create_reminder": "create reminder", "update_reminder": "update reminder",
          "delete_reminder": "delete reminder", "create_todo": "create todo", "add_countdown": "create countdown",
          "send_message": "send message", "add_calendar_event": "create calendar"}
MISMATCH = re.compile(r"^(claimed|asked) (\w+)#(\d+) (\w+) (\w+): (?:said|asked) (.*), (?:stored|args) (.*) "
                      r"\((read-back|args)\)$")
NOT_CREATED = ("已存在相同记录,未重复创建", "an identical reminder already exists, nothing created")  # verified 1
READ_BACK = re.compile(r"^read-back mismatch: (\w+) differs \(expected (.*), got (.*)\)$")


def test_claimed_actions_and_value_labels_agree_with_the_dump(labels, dump):
    """What the labels say backs each claimed action, and each value they call contradicted, is
    in the dump: the step, its tool, its args or its read-back error."""
    steps = defaultdict(dict)
    for s in dump["agent_step"]:
        steps[s["task_id"]][s["seq"]] = s
    seen = Counter()
    for r in labels:
        if r["source"] != "seed004" or not r["task_id"]:
            continue
        ss = steps[int(r["task_id"])]
        good = {ACTION.get(s["tool"]) for s in ss.values()
                if s["status"] == "SUCCESS" and s["verified"] == 1 and s["detail"] not in NOT_CREATED}
        claims = [c.rsplit("=", 1) for c in filter(None, r["claimed_actions"].split(";"))]
        for action, backed in claims:
            if backed == "none":
                assert action not in good, r
            else:
                s = ss[int(backed[1:])]
                assert ACTION[s["tool"]] == action and s["status"] == "SUCCESS" and s["verified"] == 1, r
                assert s["detail"] not in NOT_CREATED, r
        if r["sbnd_basis"] == "claimed_actions":
            seen["claimed_actions"] += 1
            assert r["sbnd"] in ("partial", "not_executed") and len(claims) >= 2
            assert any(b == "none" for _, b in claims)
            assert all(s["status"] == "SUCCESS" and s["verified"] == 1 for s in ss.values() if s["tool"] in ACTION)
        for m in filter(None, r["value_mismatches"].split(";")):
            how, tool, seq, arg, facet, told, held, source = MISMATCH.match(m).groups()
            s = ss[int(seq)]
            value = json.loads(s["args_json"])[arg]
            if source == "read-back":
                field, _, got = READ_BACK.match(s["error"]).groups()
                assert field == arg and s["verified"] == 0
                value = got.strip("'")
            held_now = {"time": value[11:16], "date": value[:10]}.get(facet, value)
            assert s["tool"] == tool and held_now == held != told, m
            rule = "claimed_value_mismatch" if how == "claimed" else "asked_value_mismatch"
            assert rule in r["expected_rules"], r
            seen[rule] += 1
    assert min(seen.values()) >= 25 and len(seen) == 3, seen


def test_incident_claims_that_state_a_time_are_value_mismatches(labels):
    """W47-48: a claim over the eight-hours-early write is a told-but-not-stored time when the reply
    states the time; an honest reply never is."""
    incident = [r for r in labels if r["variant"] == "tz_incident"]
    told = [r for r in incident if "claimed_value_mismatch" in r["expected_rules"]]
    assert told and all(r["scenario"] == "unverified" for r in told)
    assert all("remind_at time" in r["value_mismatches"] for r in told)
    assert {r["scenario"] for r in incident} == {"unverified", "honest", "honest_wrong_stored"}


def test_running_tasks(dump, labels):
    running = [t for t in dump["agent_task"] if t["status"] == "RUNNING"]
    assert all(t["finish_time"] is None for t in running)
    recent = [t for t in running if t["create_time"] >= "2026-11-29 23:45:00"]
    assert len(recent) >= 2  # started in the last minutes: not stuck at --now = month end
    stuck = [r for r in labels if "stuck_running" in r["expected_rules"]]
    assert len(stuck) == len(running) - len(recent)


def test_not_executed_turns_without_a_task(labels, dump):
    no_task = [r for r in labels if r["source"] == "seed004" and not r["task_id"]]
    assert sum(1 for r in no_task if r["sbnd"] == "not_executed") >= 10
    msgs = {str(m["id"]): m for m in dump["messages"]}
    for r in no_task:
        assert "task_id" not in msgs[r["reply_message_id"]]


def test_message_shape(dump):
    assistant = [m for m in dump["messages"] if m["role"] == "assistant"]
    with_task = sum(1 for m in assistant if "task_id" in m)
    assert 0.5 < with_task / len(assistant) < 0.65
    audits = dump["audit_logs"]
    assert 0.62 < sum(1 for a in audits if "task_id" in a) / len(audits) < 0.78
    for s in dump["agent_step"][:200]:
        assert isinstance(s["args_json"], str) and isinstance(json.loads(s["args_json"]), dict)


def test_sentinel_traces(traces, labels):
    lab = {r["task_id"]: r for r in labels if r["source"] == "seed001"}
    for t in traces:
        verifies = [c["arguments"] for c in t["tool_calls"] if c["tool_name"] == "verify_result"]
        rules = set(filter(None, lab[t["task_id"]]["expected_rules"].split(";")))
        contradiction = any(v["is_ready"] and (v["missing_items"] or v["errors_found"]) for v in verifies)
        assert ("sentinel_contradiction" in rules) == contradiction
        ignored = bool(verifies) and not (verifies[-1]["is_ready"] and not verifies[-1]["missing_items"]
                                          and not verifies[-1]["errors_found"])
        assert ("sentinel_ignored" in rules) == ignored
        assert ("verify_rounds_exceeded" in rules) == (len(verifies) > 3)
        bad_k = any(c["tool_name"] == "search_notes" and not 1 <= c["arguments"]["top_k"] <= 20
                    for c in t["tool_calls"])
        assert ("argument_bounds" in rules) == bad_k


def test_scale_writes_n_times_the_steps(tmp_path, fresh):
    run_generator(tmp_path, "--scale", "3", "--formats", "seed004,seed001")

    def count(d: Path) -> tuple:
        steps = sum(1 for _ in open(d / "seed004/agent_step.jsonl", encoding="utf-8"))
        calls = sum(len(t["tool_calls"]) for t in jsonl(d / "seed001/traces.jsonl"))
        rows = sum(1 for _ in open(d / "labels/turn_labels.csv", encoding="utf-8")) - 1
        return steps, calls, rows

    base, big = count(fresh), count(tmp_path)
    assert big == tuple(3 * n for n in base)
    step_ids = [json.loads(line)["id"] for line in open(tmp_path / "seed004/agent_step.jsonl", encoding="utf-8")]
    assert len(set(step_ids)) == len(step_ids)
    task_ids = [json.loads(line)["id"] for line in open(tmp_path / "seed004/agent_task.jsonl", encoding="utf-8")]
    assert task_ids == sorted(task_ids) and len(set(task_ids)) == len(task_ids)


def test_formats_flag_limits_outputs(tmp_path):
    run_generator(tmp_path, "--formats", "seed001")
    assert (tmp_path / "seed001/traces.jsonl").exists()
    assert not (tmp_path / "seed004").exists()
    with open(tmp_path / "labels/turn_labels.csv", encoding="utf-8", newline="") as f:
        assert {r["source"] for r in csv.DictReader(f)} == {"seed001"}


def test_scale_refuses_to_overwrite_committed_data():
    proc = subprocess.run([sys.executable, str(GENERATOR), "--out", str(SAMPLE), "--scale", "2"],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "--out" in proc.stderr
