"""Field-name redaction inside JSON columns, at any depth, and value patterns inside JSON strings."""

from __future__ import annotations

import json

import pytest

from trace_audit.ingest.redact.config import RedactionConfig
from trace_audit.ingest.redact.redactor import Redactor
from trace_audit.ingest.redact.report import RedactionReport
from trace_audit.ingest.redact.text import HitCounter

KEY = b"json-test-key-0123456789"


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(RedactionConfig(), KEY)


def redact(redactor: Redactor, doc) -> tuple[object, dict[str, int]]:
    report = RedactionReport()
    text = doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False)
    out = redactor.redact_json_text(text, HitCounter(report, "steps.args"))
    return json.loads(out), report.counts


def test_sensitive_keys_at_any_depth(redactor):
    doc = {
        "title": "买牛奶",
        "password": "hunter2",
        "auth": {"headers": {"Authorization": "Basic dXNlcjpwYXNz", "X-Api-Key": "k-123", "Accept": "json"}},
        "items": [{"name": "a", "access_token": "at-1"}, {"name": "b", "refresh_token": "rt-2"}],
        "db": {"DB_PASSWORD": "pw", "client-secret": "cs", "Set-Cookie": "sid=abc; HttpOnly"},
        "credentials": {"user": "u", "pass": "p"},
        "private_key": "whatever",
    }
    out, counts = redact(redactor, doc)
    assert out["title"] == "买牛奶"
    assert out["password"].startswith("«password:")
    headers = out["auth"]["headers"]
    assert headers["Authorization"].startswith("«authorization:") and headers["X-Api-Key"].startswith("«api_key:")
    assert headers["Accept"] == "json"
    assert out["items"][0] == {"name": "a", "access_token": out["items"][0]["access_token"]}
    assert out["items"][0]["access_token"].startswith("«access_token:")
    assert out["items"][1]["refresh_token"].startswith("«refresh_token:")
    assert out["db"]["DB_PASSWORD"].startswith("«password:")
    assert out["db"]["client-secret"].startswith("«client_secret:")
    assert out["db"]["Set-Cookie"].startswith("«set_cookie:")
    assert isinstance(out["credentials"], str) and out["credentials"].startswith("«credentials:")  # replaced whole
    assert counts == {"field:password": 2, "field:authorization": 1, "field:api_key": 1, "field:access_token": 1,
                      "field:refresh_token": 1, "field:client_secret": 1, "field:set_cookie": 1,
                      "field:credentials": 1, "field:private_key": 1}
    dumped = json.dumps(out)
    for original in ("hunter2", "dXNlcjpwYXNz", "k-123", "at-1", "rt-2", "sid=abc", '"pass": "p"', "whatever"):
        assert original not in dumped


def test_counts_and_correlation_ids_are_not_secrets(redactor):
    doc = {"gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 40, "max_tokens": 2048,
           "token_count": 7, "session_id": "s-42", "session.id": "s-42", "conversation_id": "c-1",
           "tokens": ["a", "b"], "key": "sort-key", "pwd": "/home/app", "top_k": 5}
    text = json.dumps(doc)
    out, counts = redact(redactor, text)
    assert out == doc and counts == {}


def test_otel_attribute_names(redactor):
    doc = {"http.request.header.authorization": ["Bearer abc"], "http.request.header.cookie": ["sid=1"],
           "gen_ai.tool.name": "create_reminder", "user.id": "u-1"}
    out, counts = redact(redactor, doc)
    assert out["http.request.header.authorization"].startswith("«authorization:")
    assert out["http.request.header.cookie"].startswith("«cookie:")
    assert out["gen_ai.tool.name"] == "create_reminder" and out["user.id"] == "u-1"


def test_json_held_in_a_json_string(redactor):
    inner = json.dumps({"api_key": "SECRET-VALUE-1", "to": "x@example.com", "n": 1})
    doc = {"tool": "send_message", "arguments": inner, "deeper": json.dumps({"wrap": json.dumps({"password": "p4ss"})})}
    out, counts = redact(redactor, doc)
    assert isinstance(out["arguments"], str)
    args = json.loads(out["arguments"])
    assert args["api_key"].startswith("«api_key:") and args["to"].startswith("«email:") and args["n"] == 1
    assert json.loads(json.loads(out["deeper"])["wrap"])["password"].startswith("«password:")
    assert counts == {"field:api_key": 1, "email": 1, "field:password": 1}


def test_value_patterns_in_strings_keys_and_numbers(redactor):
    doc = {"note": "联系 13800138000 或 bob@example.com,已创建", "phone": 13912345678,
           "amount": 12.50, "big": 123456789012345678901234567890, "id": 2026110812345678,
           "bob@example.com": "key is an email"}
    out, counts = redact(redactor, json.dumps(doc, ensure_ascii=False))
    assert out["note"].startswith("联系 «phone_cn:") and out["note"].endswith(",已创建")
    assert out["phone"].startswith("«phone_cn:")           # a phone stored as a JSON number
    assert out["id"] == 2026110812345678                   # an order id is not a card
    assert out["amount"] == 12.5 and out["big"] == 123456789012345678901234567890
    assert not any("bob@example.com" in k for k in out)
    assert counts == {"phone_cn": 2, "email": 2}


def test_unchanged_documents_keep_their_exact_text(redactor):
    text = '{"a": 1.50, "b": [1, 2, {"c": "d"}], "e": 1e3}'
    report = RedactionReport()
    assert redactor.redact_json_text(text, HitCounter(report, "x")) == text
    changed = json.loads(redactor.redact_json_text('{"a": 1.50, "password": "x", "e": 1e3}', HitCounter(report, "x")))
    assert changed["a"] == 1.5 and changed["e"] == 1000   # same numbers (a rewritten document is re-serialised)
    # Beyond float range a number would turn into Infinity (not JSON): kept as its source text instead.
    huge = redactor.redact_json_text('{"password": "x", "big": 1e400, "i": 123456789012345678901234567890}',
                                     HitCounter(report, "x"))
    assert '"big":1e400' in huge and '"i":123456789012345678901234567890' in huge and "«password:" in huge


def test_null_and_empty_secrets_are_kept(redactor):
    out, counts = redact(redactor, {"password": None, "token": ""})
    assert out == {"password": None, "token": ""} and counts == {}


def test_same_secret_same_token_across_documents(redactor):
    a, _ = redact(redactor, {"password": "hunter2"})
    b, _ = redact(redactor, {"nested": [{"PASSWORD": "hunter2"}]})
    assert a["password"] == b["nested"][0]["PASSWORD"]


def test_keep_and_extra_field_names():
    r = Redactor(RedactionConfig(keep_field_names=("cookie",), extra_field_names=("otp", "verification_code")), KEY)
    out, counts = redact(r, {"cookie": "c=1", "otp": "123456", "sms": {"verification-code": "9876"}})
    assert out["cookie"] == "c=1"
    assert out["otp"].startswith("«otp:") and out["sms"]["verification-code"].startswith("«verification_code:")


def test_hostile_depth_does_not_crash_and_keeps_nothing(redactor):
    deep = '{"password": "p", "a": ' + "[" * 5000 + "1" + "]" * 5000 + "}"
    report = RedactionReport()
    out = redactor.redact_json_text(deep, HitCounter(report, "x"))
    assert json.loads(out).startswith("«unparseable_json:")
    assert report.counts == {"unparseable_json": 1}


def test_escaped_json_text_does_not_hide_values_from_the_vectorised_gate():
    import pyarrow as pa

    from trace_audit.ingest.redact.redactor import redact_tables

    # Producers escape slashes (PHP), tabs and newlines; the decoded strings hold the secrets.
    docs = [
        r'{"h": "Authorization:\tBearer abcdefgh12345678"}',
        r'{"u": "https:\/\/x.example\/cb?access_token=abcd1234&x=1"}',
        r'{"inner": "{\"note\": \"pass\\u0077ord: hunter22\"}"}',
        r'{"k": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----"}',
    ]
    table = pa.table({"task_id": ["t"] * len(docs), "seq": list(range(len(docs))), "args": docs})
    out, report = redact_tables({"steps": table}, RedactionConfig(), KEY)
    got = [json.loads(v) for v in out["steps"].column("args").to_pylist()]
    assert "abcdefgh12345678" not in json.dumps(got) and "abcd1234" not in json.dumps(got)
    assert "hunter22" not in json.dumps(got) and "MIIEvQIBADANBg" not in json.dumps(got)
    assert report.counts == {"bearer": 1, "secret_assignment": 2, "private_key": 1}
