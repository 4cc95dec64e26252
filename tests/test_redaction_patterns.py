"""Value-pattern rules: what each one takes, and the look-alikes it must leave alone."""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from trace_audit.ingest.redact.checks import cn_id_ok, luhn_ok
from trace_audit.ingest.redact.config import RedactionConfig, default_rules
from trace_audit.ingest.redact.redactor import Redactor
from trace_audit.ingest.redact.report import RedactionReport
from trace_audit.ingest.redact.rules import compile_rules
from trace_audit.ingest.redact.text import TOKEN_RE, HitCounter

KEY = b"test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(RedactionConfig(), KEY)


def rules_hit(redactor: Redactor, text: str) -> tuple[str, dict[str, int]]:
    report = RedactionReport()
    out = redactor.redact_text(text, HitCounter(report, "t.c"))
    return out, report.counts


# (rule, text containing it, the secret that must be gone afterwards)
POSITIVES = [
    ("email", "请把结果发到 Alice.Wong+work@Example.co.uk 谢谢", "Alice.Wong+work@Example.co.uk"),
    ("email", "mail bob_smith@mail.example.com.", "bob_smith@mail.example.com"),
    ("phone_cn", "我的手机是13800138000,请提醒我", "13800138000"),
    ("phone_cn", "call +86 138-0013-8000 tomorrow", "138-0013-8000"),
    ("phone_cn", "电话: 0086 139 1234 5678", "139 1234 5678"),
    ("phone_cn", "tel:+8615912345678", "15912345678"),
    ("phone_intl", "reach me on +44 20 7946 0958 please", "20 7946 0958"),
    ("phone_intl", "US +1 (415) 555-2671", "555-2671"),
    ("phone_intl", "+4915123456789", "4915123456789"),
    ("phone_formatted", "office (415) 555-2671", "555-2671"),
    ("phone_formatted", "call 415-555-2671 now", "415-555-2671"),
    ("phone_formatted", "北京座机 010-62345678", "62345678"),
    ("phone_formatted", "深圳 0755-86001234", "86001234"),
    ("card", "visa 4111 1111 1111 1111 exp 12/28", "4111 1111 1111 1111"),
    ("card", "card=4111-1111-1111-1111", "4111-1111-1111-1111"),
    ("card", "银联卡6212262201234567891号", "6212262201234567891"),
    ("card", "amex 378282246310005", "378282246310005"),
    ("card", "mc 2223003122003222", "2223003122003222"),
    ("cn_id", "身份证号11010519491231002X", "11010519491231002X"),
    ("cn_id", "id 440308199901010012 ok", "440308199901010012"),
    ("bearer", "Authorization: Bearer abcDEF123456.xyz-_~+/=", "abcDEF123456.xyz"),
    ("bearer", "header bearer    0123456789abcdef", "0123456789abcdef"),
    ("jwt", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("private_key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nAbCd==\n-----END RSA PRIVATE KEY-----\nend",
     "MIIEowIBAAKCAQEA7"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA (truncated", "b3BlbnNzaC1rZXktdjEAAAAA"),
    ("api_key", "OPENAI_KEY sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t in env", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"),
    ("api_key", "aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("api_key", "gh token ghp_0123456789abcdefghijABCDEFGHIJ0123456789", "ghp_0123456789abcdefghijABCDEFGHIJ0123456789"),
    ("api_key", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("api_key", "slack xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012-abcdefABCDEF"),
    ("api_key", "google AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("secret_assignment", "login failed: password=hunter2!", "hunter2!"),
    ("secret_assignment", "GET /cb?access_token=ya29.a0AfH6SM&state=1", "ya29.a0AfH6SM"),
    ("secret_assignment", '{"passwd": "s3cr3t-Pa55"} (raw)', "s3cr3t-Pa55"),
]


@pytest.mark.parametrize("rule,text,secret", POSITIVES, ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVES)])
def test_positive_is_redacted_by_its_rule(redactor, rule, text, secret):
    out, counts = rules_hit(redactor, text)
    assert secret not in out
    assert counts.get(rule, 0) >= 1, (out, counts)
    assert f"«{rule}:" in out


# Look-alikes that must come out byte-for-byte unchanged.
NEGATIVES = [
    "order 2026110812345678 shipped",                  # order id: 2026 is no issuer prefix
    "订单号 20261108000123 已创建",
    "ts 1731052800000 and 1731052800 and 1731052800123456789",  # epoch ms / s / ns
    "created 2026-11-08 08:00:00+08:00",
    "2026年11月8日 08:00 提醒已设置",
    "version v1.2.3 / 10.0.19045.3693 / 2.4.0-rc.1",
    "ids c-000123 t-0000004567 msg_00001234567",
    "4111 1111 1111 1112 is Luhn-invalid",
    "4111111111111112",
    "5555555555554445 fails Luhn too",
    "4444444444444444 placeholder",
    "lodash@4.17.21 and pkg@1.0.0",
    "3.14159265358979323846",
    "ip 192.168.100.200 port 8080",
    "13800138000123 is too long for a mobile",
    "tokens used: 1234, max_tokens=2048",
    "token count 4096",
    "Bearer short",
    "the basic plan",
    "110105194912310021 has a wrong check digit",
    "110105194913310021 has month 13",
    "2026-11-08T08:00:00Z",
    "密码: 请在设置里修改",                            # a claim about a password, no password in it
    "call at 8:00, room 1203",
    "+08:00 offset",
    "amount 1,234,567.89",
    "hash 3f9a1c2b4d5e6f708192a3b4c5d6e7f8",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_hard_negative_is_left_alone(redactor, text):
    out, counts = rules_hit(redactor, text)
    assert out == text, counts
    assert counts == {}


def test_claim_words_stay_only_spans_change(redactor):
    text = "好的,已为您创建提醒,并发送确认到 a.b@example.com,手机 13800138000 也会收到短信。"
    out, _ = rules_hit(redactor, text)
    assert out.startswith("好的,已为您创建提醒,并发送确认到 «email:")
    assert ",手机 «phone_cn:" in out
    assert out.endswith("» 也会收到短信。")


def test_same_value_written_differently_gets_one_token(redactor):
    a, _ = rules_hit(redactor, "13800138000")
    b, _ = rules_hit(redactor, "+86 138-0013-8000")
    c, _ = rules_hit(redactor, "0086 138 0013 8000")
    assert a == b == c
    e1, _ = rules_hit(redactor, "Bob@Example.COM")
    e2, _ = rules_hit(redactor, "bob@example.com")
    assert e1 == e2
    k1, _ = rules_hit(redactor, "4111 1111 1111 1111")
    k2, _ = rules_hit(redactor, "4111111111111111")
    assert k1 == k2


def test_tokens_are_keyed_and_stable():
    text = "mail bob@example.com"
    a = Redactor(RedactionConfig(), KEY).redact_text(text)
    b = Redactor(RedactionConfig(), KEY).redact_text(text)
    c = Redactor(RedactionConfig(), b"another-key-0123456789").redact_text(text)
    assert a == b and a != c
    assert TOKEN_RE.search(a) and len(TOKEN_RE.search(a).group(0)) == len("«email:»") + 12


def test_redacting_twice_changes_nothing(redactor):
    text = "mail bob@example.com, call 13800138000, Bearer abcdefgh12345678, api_key=zzzz1234"
    once, _ = rules_hit(redactor, text)
    twice, counts = rules_hit(redactor, once)
    assert once == twice and counts == {}


def test_luhn_and_cn_id_checks():
    assert luhn_ok("4111111111111111") and luhn_ok("4111 1111 1111 1111")
    assert not luhn_ok("4111111111111112")
    assert not luhn_ok("2026110812345674")            # Luhn-valid but 2026 is no issuer range
    assert luhn_ok("2223003122003222")
    assert not luhn_ok("411111111111")                # 12 digits
    assert cn_id_ok("11010519491231002X") and cn_id_ok("11010519491231002x")
    assert not cn_id_ok("110105194912310021")
    assert not cn_id_ok("110105194902300023")         # 30 February


def test_every_positive_passes_its_prefilter():
    # The prefilter is the vectorised gate: a positive it misses would be stored in clear.
    rules = {r.name: r for r in default_rules().patterns}
    for rule, text, _secret in POSITIVES:
        pre = rules[rule].prefilter or rules[rule].pattern
        assert pc.match_substring_regex(pa.array([text]), pre)[0].as_py(), (rule, text)
    compiled = compile_rules(RedactionConfig())
    col = pa.array([p[1] for p in POSITIVES])
    assert pc.all(pc.match_substring_regex(col, compiled.text_prefilter)).as_py()


def test_disable_and_extra_patterns():
    cfg = RedactionConfig(disable_rules=("phone_formatted",),
                          extra_patterns=({"name": "employee_id", "pattern": r"\bEMP-\d{6}\b",
                                           "prefilter": "EMP-[0-9]{6}"},))
    r = Redactor(cfg, KEY)
    out = r.redact_text("EMP-004211 at 415-555-2671")
    assert re.fullmatch(r"«employee_id:[0-9a-f]{12}» at 415-555-2671", out)


@pytest.mark.parametrize("rule", [r.name for r in default_rules().patterns])
def test_prefilter_is_a_superset_of_the_precise_pattern(rule):
    # Strings generated from the precise pattern (with random text around it):
    # whenever the precise rule matches, the vectorised RE2 gate must too.
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    spec = {r.name: r for r in default_rules().patterns}[rule]
    precise = next(r for r in compile_rules(RedactionConfig()).rules if r.name == rule).regex
    gate = spec.prefilter or spec.pattern
    gate_py = compile_rules(RedactionConfig()).text_gate

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(precise, fullmatch=False))
    def check(text):
        if precise.search(text):
            assert pc.match_substring_regex(pa.array([text]), gate)[0].as_py(), text
            assert gate_py.search(text), text  # the same gate as Python runs it on JSON leaves

    check()
