"""The [redaction] config section and where the HMAC key comes from."""

from __future__ import annotations

import os
import stat
import tomllib

import pytest

from trace_audit.ingest.redact.config import RedactionConfig, RedactionConfigError, load_redaction_config
from trace_audit.ingest.redact.key import KEY_ENV, RedactionKeyError, key_file_for, resolve_key
from trace_audit.ingest.redact.redactor import Redactor


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)


def test_section_from_toml():
    doc = tomllib.loads("""
[redaction]
enabled = true
pseudonymise_user_id = true
extra_field_names = ["otp"]
disable_rules = ["phone_formatted"]
[[redaction.extra_patterns]]
name = "ticket"
pattern = 'TKT-\\d{8}'
""")
    cfg = load_redaction_config(doc["redaction"])
    assert cfg.pseudonymise_user_id and cfg.extra_field_names == ("otp",)
    assert cfg.extra_patterns[0].name == "ticket"


def test_defaults_are_on():
    cfg = load_redaction_config(None)
    assert cfg.enabled and not cfg.pseudonymise_user_id and cfg.token_length == 12


@pytest.mark.parametrize("section,expected", [
    ({"enable": False}, "unknown key 'enable'"),
    ({"pseudonymize_user_id": True}, "unknown key 'pseudonymize_user_id'"),
    ({"disable_rules": ["phone"]}, "disable_rules names unknown rule(s) ['phone']"),
    ({"key": "short"}, "key must be at least 16 characters"),
    ({"token_length": 4}, "[redaction].token_length"),
    ({"extra_patterns": [{"name": "x", "pattern": "(unclosed"}]}, "not a valid regular expression"),
    ({"extra_patterns": [{"name": "x", "pattern": "a", "prefilter": "(?<=a)b"}]}, "not valid RE2"),
    # RE2-only syntax: the Python-side gates would read it differently and miss silently.
    ({"extra_patterns": [{"name": "x", "pattern": "a", "prefilter": "[[:space:]]secret"}]},
     "Python's re reads differently from RE2 (Possible nested set"),
    ({"extra_patterns": [{"name": "x", "pattern": "a", "prefilter": r"\pN{6}"}]},
     "Python's re reads differently from RE2 (bad escape \\p"),
    # Without a prefilter the pattern is the prefilter: the same checks (it was stored unchecked,
    # and `EMP-\d{,3}X` then missed EMP-12X in the columns, where RE2 reads {,3} literally).
    ({"extra_patterns": [{"name": "x", "pattern": r"EMP-\d{,3}X"}]},
     r"pattern (the prefilter, as none is given) 'EMP-\\d{,3}X' uses syntax that Python's re reads differently"),
    ({"extra_patterns": [{"name": "x", "pattern": "(?<=a)b"}]},
     "pattern (the prefilter, as none is given) '(?<=a)b' is not valid RE2"),
    ({"extra_patterns": [{"name": "email", "pattern": "a"}]}, "reuse built-in rule names"),
    ({"extra_patterns": [{"name": "x", "pattern": "a", "flags": "i"}]},
     "unknown key 'extra_patterns.0.flags' (known keys: name, pattern, prefilter, check, normalise)"),
    ({"extra_field_names": ["otp#1"]}, "field names may use letters"),
])
def test_bad_sections_say_what_to_fix(section, expected):
    with pytest.raises(RedactionConfigError) as info:
        load_redaction_config(section, "trace-audit.toml")
    assert expected in str(info.value)
    assert "trace-audit.toml [redaction]" in str(info.value)


@pytest.mark.parametrize("prefilter", [r"C:\\pagefile", r"\\\\z", r"a\{,3\}"])
def test_an_escaped_backslash_or_brace_is_not_taken_for_re2_only_syntax(prefilter):
    # `\\p` is a backslash then "p", and `\{,` a brace then a comma, in RE2 and in Python alike.
    config = load_redaction_config({"extra_patterns": [{"name": "x", "pattern": "a", "prefilter": prefilter}]},
                                   "trace-audit.toml")
    assert config.extra_patterns[0].prefilter == prefilter


def test_key_is_not_shown_in_repr():
    cfg = RedactionConfig(key="a-very-secret-key-value")
    assert "a-very-secret-key-value" not in repr(cfg) and "a-very-secret-key-value" not in str(cfg.model_dump())


def test_key_file_created_once_owner_only(tmp_path):
    db = tmp_path / "w.duckdb"
    k1 = resolve_key(RedactionConfig(), db)
    path = key_file_for(db)
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(k1) == 64
    assert resolve_key(RedactionConfig(), db) == k1          # reused, not regenerated
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    other = resolve_key(RedactionConfig(), tmp_path / "other.duckdb")
    assert other != k1                                        # per deployment


def test_key_file_readable_by_others_is_refused(tmp_path):
    db = tmp_path / "w.duckdb"
    resolve_key(RedactionConfig(), db)
    os.chmod(key_file_for(db), 0o644)
    with pytest.raises(RedactionKeyError, match="chmod 600"):
        resolve_key(RedactionConfig(), db)


def test_env_key_wins_over_file_and_config_must_agree(tmp_path, monkeypatch):
    db = tmp_path / "w.duckdb"
    monkeypatch.setenv(KEY_ENV, "env-key-0123456789abcdef")
    assert resolve_key(RedactionConfig(), db) == b"env-key-0123456789abcdef"
    assert not key_file_for(db).exists()                      # no file written when a key is given
    assert resolve_key(RedactionConfig(key="env-key-0123456789abcdef"), db) == b"env-key-0123456789abcdef"
    with pytest.raises(RedactionKeyError, match="they differ"):
        resolve_key(RedactionConfig(key="config-key-0123456789"), db)
    monkeypatch.setenv(KEY_ENV, "short")
    with pytest.raises(RedactionKeyError, match="at least 16"):
        resolve_key(RedactionConfig(), db)


def test_config_key_and_env_key_give_the_same_tokens(tmp_path, monkeypatch):
    text = "mail bob@example.com"
    from_config = Redactor(RedactionConfig(), resolve_key(RedactionConfig(key="k" * 20), tmp_path / "a.duckdb"))
    monkeypatch.setenv(KEY_ENV, "k" * 20)
    from_env = Redactor(RedactionConfig(), resolve_key(RedactionConfig(), tmp_path / "b.duckdb"))
    from_file = Redactor(RedactionConfig(), resolve_key(RedactionConfig(), tmp_path / "c.duckdb"))
    assert from_config.redact_text(text) == from_env.redact_text(text)
    monkeypatch.delenv(KEY_ENV)
    assert Redactor(RedactionConfig(), resolve_key(RedactionConfig(), tmp_path / "c.duckdb")).redact_text(text) \
        != from_env.redact_text(text)
    assert from_file.redact_text(text) == from_env.redact_text(text)  # env was set when c was resolved


def test_disabled_means_no_redactor(tmp_path):
    assert Redactor.for_database(RedactionConfig(enabled=False), tmp_path / "w.duckdb") is None
    assert not key_file_for(tmp_path / "w.duckdb").exists()


def test_in_memory_database_gets_a_throwaway_key():
    assert resolve_key(RedactionConfig(), ":memory:") != resolve_key(RedactionConfig(), ":memory:")


def test_every_rule_can_be_switched_off():
    from trace_audit.ingest.redact.config import default_rules

    names = tuple(r.name for r in default_rules().patterns)
    cfg = load_redaction_config({"disable_rules": list(names), "keep_field_names": ["password"]})
    r = Redactor(cfg, b"k" * 20)
    assert r.redact_text("mail bob@example.com, call 13800138000") == "mail bob@example.com, call 13800138000"
    assert r.redact_json_text('{"password": "x", "token": "y"}').startswith('{"password": "x", "token": "«token:')


def test_key_file_follows_the_connection_when_no_path_is_given(tmp_path):
    import duckdb

    con = duckdb.connect(str(tmp_path / "recv.duckdb"))
    try:
        r = Redactor.for_database(RedactionConfig(), None, con=con)
    finally:
        con.close()
    assert key_file_for(tmp_path / "recv.duckdb").exists()
    assert r.redact_text("a@example.com") == Redactor(RedactionConfig(), key_file_for(
        tmp_path / "recv.duckdb").read_text().strip().encode()).redact_text("a@example.com")


def test_redact_decoded_is_one_call_for_the_loader():
    import pyarrow as pa

    from trace_audit.ingest.read.base import Decoded
    from trace_audit.ingest.redact.redactor import redact_decoded
    from trace_audit.ingest.redact.report import RedactionReport

    decoded = Decoded(tables={"messages": pa.table({"message_id": ["m1"], "content": ["mail a@example.com"]})},
                      errors=[(3, '{"x": "b@example.com"}', "unrecognised record")])
    report = RedactionReport()
    assert redact_decoded(decoded, None, report) is decoded and report.total == 0
    out = redact_decoded(decoded, Redactor(RedactionConfig(), b"k" * 20), report)
    assert out.tables["messages"].column("content")[0].as_py().startswith("mail «email:")
    assert out.errors[0][0] == 3 and "b@example.com" not in out.errors[0][1] and out.errors[0][2] == "unrecognised record"
    assert report.as_dict()["by_column"] == {"messages.content": {"email": 1}, "ingest_errors.raw": {"email": 1}}
    assert decoded.tables["messages"].column("content")[0].as_py() == "mail a@example.com"  # input untouched
