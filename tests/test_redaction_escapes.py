"""The JSON-column prefilters read the raw JSON text, escapes and all, and still miss nothing.

The old gate first rewrote every JSON text into an unescaped copy (`_unescaped_view`)
and ran the prefilters on that. The gate now runs escape-tolerant forms of the
prefilters (`escape_tolerant`) on the text as stored. These tests hold the new gate
to the old one: every row (and every rule bit) the old view selected is still
selected, for JSON texts with escapes at several nesting levels; and on text
without escapes both gates agree, so no extra rows reach the slow path.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from trace_audit.ingest.redact.config import (
    RedactionConfig,
    RedactionConfigError,
    default_rules,
    load_redaction_config,
)
from trace_audit.ingest.redact.escape_tolerant import escape_tolerant
from trace_audit.ingest.redact.prefilter_syntax import ESCAPED_ASCII
from trace_audit.ingest.redact.redactor import Redactor, redact_tables, _unescaped_view
from trace_audit.ingest.redact.rules import compile_rules

KEY = b"escapes-test-key-0123456789"
RULES = compile_rules(RedactionConfig())
CONFIGS = {
    "default": RedactionConfig(),
    "pseudonymise": RedactionConfig(pseudonymise_user_id=True, extra_field_names=("otp",)),
}


def matches(texts: list[str], regex: str) -> list[bool]:
    return pc.fill_null(pc.match_substring_regex(pa.array(texts, pa.string()), regex), False).to_pylist()


def old_gate(texts: list[str], regex: str) -> list[bool]:
    return pc.fill_null(pc.match_substring_regex(_unescaped_view(pa.array(texts, pa.string())), regex),
                        False).to_pylist()


# --- random JSON documents with escapes at several nesting levels ---------------------

# Pieces that make prefilters fire, nearly fire, or fire only once unescaped.
FRAGMENTS = [
    "Bearer", "bearer", "\t", "\n", "\r", "\b", "\f", " ", "\v", "/", '"', "'", "\\", ":", "=", "@", "-", "+",
    "(", ")", ".", "_", "password", "Token", "api_key", "api-key", "secret", "pwd", "passwd", "user_id",
    "user.id", "otp", "authorization", "Set-Cookie", "-----BEGIN RSA PRIVATE KEY-----", "PRIVATE", "KEY",
    "eyJhbGciOi", ".eyJzdWIi", "sk-", "sk-proj-", "AKIA", "ghp_", "xoxb-", "AIza", "bob", "example.com",
    "+86", "138", "0013", "1234", "5678", "4111", "(415)", "555", "2671", "010-", "0755-", "110105",
    "19491231", "002X", "中文", "é", "abcdefgh", "ABCDEFGHIJKLMNOP", "0123456789",
]
# Near-positives whose separators are characters JSON escapes: most of them match a prefilter
# only once unescaped, which is exactly what the tolerant gate must not lose.
SEPARATORS = [" ", "\t", "\n", "\r", "\b", "\f", "/", '"', "'", "-", "", "  ", "\t\n"]
TEMPLATES = [
    "Bearer{0}abcd/efgh1234", "Authorization:{0}bearer{1}{1}0123456789", "password{2}{0}:{1}{2}hunter/22",
    "?access_token{0}={1}abcd", "-----BEGIN{0}RSA{1}PRIVATE{0}KEY-----", "+86{0}138{1}0013{0}8000",
    "4111{0}1111{1}1111{0}1111", "(415){0}555-2671", "415{0}555{0}2671", "{{{2}api_key{2}{0}:{1}1}}",
    "{{{2}user.id{2}{0}:{1}{2}u-1{2}}}", "{{{2}otp{2}{0}:{2}1234{2}}}", "x{0}bob@example.com", "1101051949{0}1231002X",
]
near_positive = st.builds(lambda t, a, b, q: t.format(a, b, q), st.sampled_from(TEMPLATES),
                          st.sampled_from(SEPARATORS), st.sampled_from(SEPARATORS), st.sampled_from(['"', "'", ""]))
text_st = st.lists(st.one_of(near_positive, st.sampled_from(FRAGMENTS), st.text(max_size=3)),
                   max_size=8).map("".join)
key_st = st.one_of(st.sampled_from(FRAGMENTS), text_st)


def documents(depth: int):
    leaf = st.one_of(text_st, st.integers(), st.none(), st.booleans())
    if depth == 0:
        return leaf
    inner = documents(depth - 1)
    # JSON held inside a JSON string doubles the backslashes of everything inside.
    as_text = inner.map(lambda v: json.dumps(v, ensure_ascii=False))
    return st.one_of(
        leaf,
        as_text,
        st.dictionaries(key_st, st.one_of(inner, as_text), max_size=3),
        st.lists(st.one_of(inner, as_text), max_size=2),
    )


@st.composite
def json_texts(draw) -> str:
    doc = draw(st.dictionaries(key_st, documents(3), min_size=1, max_size=3))
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()), separators=draw(st.sampled_from([None, (",", ":")])))
    if draw(st.booleans()):
        text = text.replace("/", "\\/")  # producers that escape slashes (PHP): still the same JSON
    return text


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(json_texts(), min_size=1, max_size=25))
def test_every_row_and_rule_the_unescaped_view_selected_is_still_selected(texts):
    escaped = matches(texts, ESCAPED_ASCII)
    for config in CONFIGS.values():
        rules = compile_rules(config)
        assert rules.json_raw_prefilter is not None
        for old, new, text in zip(old_gate(texts, rules.json_prefilter), matches(texts, rules.json_raw_prefilter),
                                  texts):
            assert new or not old, text
        for r in rules.rules:
            # A row whose text holds \u-escaped ASCII gets every rule anyway (in both gates).
            for old, new, esc, text in zip(old_gate(texts, r.prefilter), matches(texts, r.json_raw_prefilter),
                                           escaped, texts):
                assert new or esc or not old, (r.name, text)


def test_the_generated_texts_do_hold_rows_only_the_unescaped_view_selects():
    # Guard against a vacuous property: the generator makes rows that only the unescaped view
    # selects (the raw text, gated by the plain prefilters, would miss them).
    def view_only(texts: list[str]) -> int:
        raw = matches(texts, RULES.json_prefilter)
        return sum(v and not r for v, r in zip(old_gate(texts, RULES.json_prefilter), raw))

    found = find(st.lists(json_texts(), min_size=25, max_size=25), lambda texts: view_only(texts) >= 3,
                 settings=settings(max_examples=20, phases=[Phase.generate], database=None,
                                   suppress_health_check=list(HealthCheck)))
    assert view_only(found) >= 3


PLAIN_SEPARATORS = [" ", "/", "'", "-", "", "  "]  # JSON writes these as they are
plain_text = st.lists(st.one_of(
    st.builds(lambda t, a, b, q: t.format(a, b, q), st.sampled_from(TEMPLATES), st.sampled_from(PLAIN_SEPARATORS),
              st.sampled_from(PLAIN_SEPARATORS), st.sampled_from(["'", ""])),
    st.sampled_from([f for f in FRAGMENTS if f.isprintable() and f not in ('"', "\\")]),
    st.text(st.characters(exclude_characters='"\\', exclude_categories=("Cs", "Cc")), max_size=3),
), max_size=8).map("".join)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.dictionaries(plain_text, plain_text, min_size=1, max_size=3)
                .map(lambda d: json.dumps(d, ensure_ascii=False)), min_size=1, max_size=40))
def test_without_backslashes_both_gates_select_the_same_rows(texts):
    # Where the text holds no escape the tolerant gate must not send extra rows to the slow path.
    assert not any("\\" in t for t in texts)
    assert matches(texts, RULES.json_raw_prefilter) == matches(texts, RULES.json_prefilter)


# Deployment rules in other scripts: JSON written ASCII-only spells their characters `\uXXXX`.
NON_ASCII = RedactionConfig(extra_patterns=(
    {"name": "cn_label", "pattern": r"身份证号[:：]?\s*(?P<value>[0-9]{6})", "prefilter": "身份证号"},
    {"name": "customer", "pattern": r"客户[^0-9]{0,3}(?P<value>[0-9]{6})", "prefilter": "客户[^0-9]{0,3}[0-9]{6}"},
    {"name": "accent", "pattern": r"(?i)café\s*[0-9]{4}", "prefilter": r"(?i)café[\t ]*[0-9]{4}"},
    {"name": "emoji", "pattern": r"🔑\W?(?P<value>[a-z]{4})", "prefilter": r"🔑\W?[a-z]{4}"},
))
NESTED_CASES = [(RedactionConfig(), r.name) for r in default_rules().patterns] + [
    (NON_ASCII, r.name) for r in NON_ASCII.extra_patterns]


@pytest.mark.parametrize("config, rule", NESTED_CASES, ids=[name for _c, name in NESTED_CASES])
def test_a_prefilter_match_nested_at_any_depth_is_still_seen_in_the_raw_text(config, rule):
    rules = compile_rules(config)
    compiled = next(r for r in rules.rules if r.name == rule)
    assert compiled.json_raw_prefilter is not None and rules.json_raw_prefilter is not None
    source = next(r for r in (*default_rules().patterns, *config.extra_patterns) if r.name == rule)
    source = source.prefilter or source.pattern

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(re.compile(source, re.ASCII), fullmatch=False,
                         alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))),
           st.integers(0, 3), st.booleans(), st.booleans())
    def check(value, depth, ascii_only, slashes):
        doc: object = {"note": value}
        for _ in range(depth):
            doc = {"wrapped": json.dumps(doc, ensure_ascii=ascii_only)}
        text = json.dumps(doc, ensure_ascii=ascii_only)
        if slashes:
            text = text.replace("/", "\\/")
        # \u-escaped ASCII (\v is written \u000b) sends a row to every rule, so it counts as seen.
        assert matches([text], compiled.json_raw_prefilter)[0] or matches([text], ESCAPED_ASCII)[0], text
        assert matches([text], rules.json_raw_prefilter)[0], text

    check()


def test_values_in_other_scripts_are_found_in_ascii_only_json():
    # The unescaped view never undid \uXXXX, so these reached the store in clear; now they do not.
    docs = [json.dumps({"m": "身份证号：123456"}),
            json.dumps({"w": json.dumps({"m": "客户 甲 654321"})}),
            json.dumps({"m": "Café 2024"}),
            json.dumps({"m": "🔑 abcd"}),
            json.dumps({"m": "nothing to see"})]
    rules = compile_rules(NON_ASCII)
    assert old_gate(docs, rules.json_prefilter) == [False] * 5
    assert matches(docs, rules.json_raw_prefilter) == [True, True, True, True, False]
    table = pa.table({"task_id": ["t"] * 5, "seq": list(range(5)), "args": docs})
    out, report = redact_tables({"steps": table}, NON_ASCII, KEY)
    got = out["steps"].column("args").to_pylist()
    assert "123456" not in got[0] and "654321" not in got[1] and "2024" not in got[2] and "abcd" not in got[3]
    assert got[4] == docs[4]
    assert report.counts == {"cn_label": 1, "customer": 1, "accent": 1, "emoji": 1}


# --- the rewrite itself ---------------------------------------------------------------


@pytest.mark.parametrize("prefilter, text", [
    (r"(?i)bearer[\t ]+x", r'{"h": "Bearer\tx"}'),
    (r"(?i)bearer[\t ]+x", r'{"h": "{\"h\": \"BEARER\\\\n\\\\tx\"}"}'),
    (r"https?://", r'{"u": "https:\/\/x"}'),
    (r"https?://", r'{"u": "{\"u\": \"http:\\\\\\/\\\\\\/x\"}"}'),
    (r"'?token'?\s*[:=]", r'{"q": "token\r\n= 1"}'),
    (r'"secret"\s*:', r'{"inner": "{\"secret\": 1}"}'),
    (r"\bEMP-\d{3}", r'{"v": "see\nEMP-123"}'),   # no word boundary in the raw text before EMP
    (r"🔑\W?[a-z]{4}", r'{"note": "🔑\\aaaa"}'),  # a backslash in the value is itself escaped
    (r"🔑\W?[a-z]{4}", r'{"w": "{\"note\": \"🔑\\\\aaaa\"}"}'),
    (r"a.b", r'{"v": "a\/b"}'),
    (r"a[^x]b", r'{"v": "a\"b"}'),
    (r"a\Wb", r'{"v": "a\\\\tb"}'),
])
def test_escape_tolerant_examples(prefilter, text):
    assert matches([text], prefilter) == [False]  # each example needs the rewrite
    assert matches([text], escape_tolerant(prefilter)) == [True]


@pytest.mark.parametrize("prefilter", [
    r"EMP[[:digit:]]{6}", r"\pN{6}", r"ab\z", r"\x{41}B", r"a{,3}b", r"(?U)a+b", r"(a)\1",
])
def test_syntax_python_reads_differently_is_not_rewritten(prefilter):
    from trace_audit.ingest.redact.escape_tolerant import _NotTolerable

    with pytest.raises(_NotTolerable):
        escape_tolerant(prefilter)


def test_without_a_tolerant_form_the_unescaped_view_is_used():
    # A prefilter that cannot be rewritten (RE2-only syntax, or grown past RE2's limits) leaves
    # json_raw_prefilter unset; the column is then read through the unescaped view as before.
    redactor = Redactor(RedactionConfig(), KEY)
    redactor.rules = replace(redactor.rules, json_raw_prefilter=None)
    docs = [json.dumps({"note": "Authorization:\tBearer abcdefgh12345678"}),
            json.dumps({"a": json.dumps({"b": "see https://x/cb?token=\tzyxw9876"})}).replace("/", "\\/"),
            json.dumps({"plain": "nothing here"})]
    table = pa.table({"task_id": ["t"] * 3, "seq": [1, 2, 3], "args": docs})
    out, report = redactor.redact_tables({"steps": table})
    got = out["steps"].column("args").to_pylist()
    assert "abcdefgh12345678" not in got[0] and "zyxw9876" not in got[1] and got[2] == docs[2]
    assert report.counts == {"bearer": 1, "secret_assignment": 1}


def test_a_config_whose_tolerant_prefilter_grows_past_re2_still_redacts():
    # A wide repeat (`[^x]{0,200}`) is fine in RE2 alone, but the escape-tolerant form of all
    # prefilters together is over RE2's size limit: this real config takes the unescaped view.
    config = load_redaction_config(
        {"extra_patterns": [{"name": "emp", "pattern": r"EMP-\d{6}", "prefilter": r"EMP-[^x]{0,200}"}]})
    redactor = Redactor(config, KEY)
    assert redactor.rules.json_raw_prefilter is None
    docs = [json.dumps({"a": json.dumps({"n": "id\tEMP-123456"})}), json.dumps({"n": "none"})]
    out, report = redactor.redact_tables({"steps": pa.table({"task_id": ["t", "t"], "seq": [1, 2], "args": docs})})
    got = out["steps"].column("args").to_pylist()
    assert "123456" not in got[0] and "«emp:" in got[0] and got[1] == docs[1]
    assert report.counts == {"emp": 1}


def test_a_configured_prefilter_that_re2_reads_literally_is_refused():
    # `{,n}` is a repeat to Python's re but literal text to RE2: over the columns such a rule
    # would miss `EMP-12x` and store it in clear, so the config is refused (it used to load,
    # and then reached the unescaped-view fallback, which the test above covers on its own).
    with pytest.raises(RedactionConfigError, match=r"'\{,' is read one way by RE2 and another by Python"):
        load_redaction_config({"extra_patterns": [
            {"name": "emp", "pattern": r"EMP-\d{6}", "prefilter": r"EMP-[0-9]{,3}[0-9]{3}"}]})


def test_the_tolerant_gate_redacts_what_only_escapes_reveal():
    # Rows the view-based gate caught are caught by the tolerant one too, and redacted alike. (The
    # tab-separated key and phone are selected, but the precise patterns rightly leave them.)
    assert RULES.json_raw_prefilter is not None
    docs = [
        json.dumps({"h": "Authorization:\tBearer abcdefgh12345678"}).replace("/", "\\/"),
        json.dumps({"w": json.dumps({"w": json.dumps({"u": "https://x/cb?token =\tzyxw9876"})})}),
        json.dumps({"a": json.dumps({"password": "hunter22"})}),
        json.dumps({"k": "-----BEGIN\tRSA PRIVATE\nKEY-----"}),
        json.dumps({"p": "+86\t138\n0013\t8000"}),
    ]
    table = pa.table({"trace_id": ["t"] * len(docs), "span_id": [str(i) for i in range(len(docs))],
                      "attributes": docs})
    assert old_gate(docs, RULES.json_prefilter) == [True] * len(docs)
    assert matches(docs, RULES.json_raw_prefilter) == [True] * len(docs)
    out, report = redact_tables({"otel_spans": table}, RedactionConfig(), KEY)
    dumped = json.dumps(out["otel_spans"].column("attributes").to_pylist())
    for secret in ("abcdefgh12345678", "zyxw9876", "hunter22"):
        assert secret not in dumped
    assert report.counts == {"bearer": 1, "secret_assignment": 1, "field:password": 1}
