"""Access to the dashboard: loopback by default, a non-local address only with --allow-remote AND an
authentication method, and a password gate that shows nothing of the warehouse until the right password."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import threading

import pytest
from streamlit.testing.v1 import AppTest

from trace_audit.dashboard import auth
from trace_audit.dashboard.login_limit import LoginLimiter
from trace_audit.dashboard.serve import app_path
from trace_audit.queries.warehouse import db

PASSWORD = "correct horse ☃ battery"


# ---- deciding the access mode -----------------------------------------------------------

def test_loopback_needs_no_login():
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert auth.resolve(host, False, None, {}, {}) == auth.Access("none", remote=False)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::", "dashboard.example"])
def test_a_remote_address_needs_the_flag(host):
    with pytest.raises(auth.AuthProblem, match="--allow-remote"):
        auth.resolve(host, False, None, {auth.PASSWORD_ENV: PASSWORD}, {})


def test_the_flag_alone_is_not_enough():
    with pytest.raises(auth.AuthProblem, match="needs an authentication method"):
        auth.resolve("0.0.0.0", True, None, {}, {})
    with pytest.raises(auth.AuthProblem, match="needs an authentication method"):
        auth.resolve("0.0.0.0", True, "none", {}, {})


def test_password_from_env_file_or_secrets(tmp_path):
    assert auth.resolve("0.0.0.0", True, None, {auth.PASSWORD_ENV: PASSWORD}, {}) == auth.Access("password", True)
    f = tmp_path / "pw"
    f.write_text(PASSWORD + "\n")
    assert auth.password_from({auth.PASSWORD_FILE_ENV: str(f)}, {}) == PASSWORD
    assert auth.password_from({}, {"trace_audit": {"dashboard_password": "s"}}) == "s"
    with pytest.raises(auth.AuthProblem, match="cannot read the password file"):
        auth.password_from({auth.PASSWORD_FILE_ENV: str(tmp_path / "missing")}, {})
    with pytest.raises(auth.AuthProblem, match="needs a password"):
        auth.resolve("0.0.0.0", True, "password", {}, {})


def test_oidc_needs_its_secrets():
    with pytest.raises(auth.AuthProblem, match=r"\[auth\]"):
        auth.resolve("0.0.0.0", True, "oidc", {}, {"auth": {"redirect_uri": "x"}})


def test_password_compare_is_on_digests():
    assert auth.digest_equal(PASSWORD, PASSWORD)
    assert not auth.digest_equal(PASSWORD[:-1], PASSWORD)
    assert not auth.digest_equal("", PASSWORD)


# ---- the command line ---------------------------------------------------------------------

def _cli(tmp_path: Path, *args: str, env_extra: dict | None = None, timeout: float = 30):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACE_AUDIT_DASHBOARD")}
    env.update(HOME=str(tmp_path), **(env_extra or {}))  # no user secrets.toml
    return subprocess.run([sys.executable, "-m", "trace_audit.cli.main", "dashboard", "--db",
                           str(tmp_path / "w.duckdb"), *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=timeout)


def test_cli_refuses_a_remote_bind_without_the_flag(tmp_path):
    out = _cli(tmp_path, "--host", "0.0.0.0", env_extra={auth.PASSWORD_ENV: PASSWORD})
    assert out.returncode == 2
    assert "--allow-remote" in out.stderr and "Traceback" not in out.stderr


def test_cli_refuses_a_remote_bind_without_authentication(tmp_path):
    out = _cli(tmp_path, "--host", "0.0.0.0", "--allow-remote")
    assert out.returncode == 2
    assert "needs an authentication method" in out.stderr
    assert "TRACE_AUDIT_DASHBOARD_PASSWORD" in out.stderr and "Traceback" not in out.stderr


def test_cli_refuses_oidc_without_auth_secrets(tmp_path):
    out = _cli(tmp_path, "--host", "0.0.0.0", "--allow-remote", "--auth", "oidc")
    assert out.returncode == 2 and "[auth]" in out.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_remote_bind_with_a_password_serves_and_warns(tmp_path):
    """Real server on 0.0.0.0 (reached over loopback only): it starts, says it is guarded, and warns."""
    db.connect(str(tmp_path / "w.duckdb")).close()
    pw = tmp_path / "pw"
    pw.write_text(PASSWORD)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACE_AUDIT_DASHBOARD")}
    env["HOME"] = str(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "trace_audit.cli.main", "dashboard", "--db",
                             str(tmp_path / "w.duckdb"), "--host", "0.0.0.0", "--allow-remote", "--port", str(port),
                             "--password-file", str(pw)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    assert r.read() == b"ok"
                    break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "the dashboard did not start"
                time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert "access: password" in out
    assert "warning: serving on 0.0.0.0" in err


# ---- the gate in the app ------------------------------------------------------------------

def _texts(at: AppTest) -> str:
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader", "metric")
    return "\n".join(str(getattr(e, "value", e)) for k in kinds for e in getattr(at, k))


@pytest.fixture
def guarded(monkeypatch, tmp_path):
    path = str(tmp_path / "w.duckdb")
    db.connect(path).close()
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    monkeypatch.setenv(auth.PASSWORD_ENV, PASSWORD)
    monkeypatch.setenv(auth.MODE_ENV, "password")
    monkeypatch.setattr(auth, "WRONG_PASSWORD_DELAY", 0.0)
    monkeypatch.setattr(auth, "LIMITER", LoginLimiter())  # each test its own count of attempts
    at = AppTest.from_file(app_path(), default_timeout=30)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _login(at: AppTest, password: str) -> AppTest:
    at.text_input(key="ta_password").input(password)
    at.button[0].click()
    return at.run()


def test_pages_stay_hidden_until_the_right_password(guarded):
    at = guarded
    assert [t.label for t in at.text_input] == ["Password"]
    assert "no agent turns yet" not in _texts(at)
    assert not at.sidebar.markdown  # not even the frame around the pages
    for wrong in ("", "correct horse", PASSWORD + " ", PASSWORD.upper()):
        _login(at, wrong)
        assert "Wrong password." in _texts(at)
        assert "no agent turns yet" not in _texts(at)
    _login(at, PASSWORD)
    assert not at.exception
    assert "no agent turns yet" in _texts(at)
    assert not at.text_input  # the form is gone once signed in
    at.run()
    assert "no agent turns yet" in _texts(at)  # the session stays signed in


def test_past_the_attempt_limit_even_the_right_password_is_not_compared(guarded):
    at = guarded
    for i in range(auth.LIMITER.per_client):
        _login(at, f"guess {i}")
        assert "Wrong password." in _texts(at)
    _login(at, PASSWORD)
    assert "Too many password attempts" in _texts(at) and "no agent turns yet" not in _texts(at)


def test_parallel_guesses_are_counted_per_address_and_overall():
    clock = [0.0]
    limiter = LoginLimiter(per_client=5, overall=12, window=60, clock=lambda: clock[0])
    allowed = []
    threads = [threading.Thread(target=lambda: allowed.append(limiter.attempt("10.0.0.1") == 0)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(allowed) == [False] * 3 + [True] * 5  # 8 parallel guesses: 5 compared
    assert sum(limiter.attempt(f"10.0.1.{i}") == 0 for i in range(20)) == 7  # 12 overall in the window
    assert limiter.attempt("10.0.9.9") > 0
    clock[0] = 61
    assert limiter.attempt("10.0.0.1") == 0  # the window has passed
    limiter.succeeded("10.0.0.1")
    assert limiter.attempt("10.0.0.1") == 0


def test_switching_page_does_not_bypass_the_gate(guarded):
    at = guarded.switch_page("views/investigate.py").run()
    assert [t.label for t in at.text_input] == ["Password"]
    assert "no agent turns yet" not in _texts(at)


def test_started_by_streamlit_directly_a_configured_password_is_still_asked(monkeypatch, tmp_path):
    path = str(tmp_path / "w.duckdb")
    db.connect(path).close()
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    monkeypatch.setenv(auth.PASSWORD_ENV, PASSWORD)
    monkeypatch.delenv(auth.MODE_ENV, raising=False)
    at = AppTest.from_file(app_path(), default_timeout=30).run()
    assert [t.label for t in at.text_input] == ["Password"]
    assert "no agent turns yet" not in _texts(at)


def test_no_password_on_loopback_opens_straight(monkeypatch, tmp_path):
    path = str(tmp_path / "w.duckdb")
    db.connect(path).close()
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    monkeypatch.delenv(auth.PASSWORD_ENV, raising=False)
    monkeypatch.setenv(auth.MODE_ENV, "none")
    at = AppTest.from_file(app_path(), default_timeout=30).run()
    assert "no agent turns yet" in _texts(at)
