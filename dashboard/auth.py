"""Who may open the dashboard: nobody but this machine, unless an authentication method is set up.

Two methods, chosen by `trace-audit dashboard --auth` (or found on their own):

- `password`: one shared password, from `$TRACE_AUDIT_DASHBOARD_PASSWORD`, a
  file named by `--password-file` ($TRACE_AUDIT_DASHBOARD_PASSWORD_FILE), or
  `dashboard_password` under `[trace_audit]` in Streamlit's secrets.toml. The
  app asks for it before any page renders and compares digests with
  `hmac.compare_digest`, so the time taken says nothing about the password.
- `oidc`: Streamlit's own OpenID Connect login (`st.login`), configured in
  `[auth]` of secrets.toml; needs Authlib (`pip install "streamlit[auth]"`).

The CLI side (`resolve`) decides the method before Streamlit starts and refuses
a non-loopback address without one; the app side (`gate`) enforces it on
every script run. `serve` hands the decision to the app in
$TRACE_AUDIT_DASHBOARD_AUTH.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .login_limit import LIMITER
from .net import is_loopback

MODE_ENV = "TRACE_AUDIT_DASHBOARD_AUTH"
PASSWORD_ENV = "TRACE_AUDIT_DASHBOARD_PASSWORD"
PASSWORD_FILE_ENV = "TRACE_AUDIT_DASHBOARD_PASSWORD_FILE"
SECRETS_SECTION = "trace_audit"
SECRETS_KEY = "dashboard_password"
OIDC_REQUIRED = ("redirect_uri", "cookie_secret")
SESSION_KEY = "_ta_authenticated"
WRONG_PASSWORD_DELAY = 1.0  # seconds; slows guessing through the form


class AuthProblem(ValueError):
    """The requested access cannot be set up; the message says what to do."""




def secrets_files(cwd: Path | None = None) -> list[Path]:
    """Where Streamlit looks for secrets by default, for the folder the user started in."""
    cwd = cwd or Path.cwd()
    return [Path.home() / ".streamlit" / "secrets.toml", cwd / ".streamlit" / "secrets.toml"]


def read_secrets(files: list[Path]) -> dict:
    merged: dict = {}
    for f in files:
        if f.is_file():
            try:
                merged.update(tomllib.loads(f.read_text(encoding="utf-8")))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise AuthProblem(f"{f}: cannot read the secrets file: {exc}") from exc
    return merged


def password_from(env: dict[str, str], secrets: dict) -> str | None:
    """The configured dashboard password, or None. Empty means not set."""
    if env.get(PASSWORD_ENV):
        return env[PASSWORD_ENV]
    path = env.get(PASSWORD_FILE_ENV)
    if path:
        try:
            text = Path(path).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise AuthProblem(f"{path}: cannot read the password file: {exc.strerror or exc}") from exc
        if not text:
            raise AuthProblem(f"{path}: the password file is empty")
        return text
    section = secrets.get(SECRETS_SECTION)
    if isinstance(section, dict) and section.get(SECRETS_KEY):
        return str(section[SECRETS_KEY])
    return None


def oidc_configured(secrets: dict) -> bool:
    auth = secrets.get("auth")
    return isinstance(auth, dict) and all(auth.get(k) for k in OIDC_REQUIRED)


@dataclass
class Access:
    mode: str  # none | password | oidc
    remote: bool


def resolve(host: str, allow_remote: bool, requested: str | None, env: dict[str, str],
            secrets: dict) -> Access:
    """Decide how the dashboard is guarded, or raise AuthProblem saying why it cannot serve."""
    remote = not is_loopback(host)
    if remote and not allow_remote:
        raise AuthProblem(
            f"--host {host} would serve the dashboard beyond this machine; everyone who can reach it reads every "
            "user's data. Add --allow-remote together with an authentication method (--auth password with "
            f"${PASSWORD_ENV} or --password-file, or --auth oidc with [auth] in .streamlit/secrets.toml), "
            "or keep the default 127.0.0.1")
    password = password_from(env, secrets)
    if requested == "password" or (requested is None and password):
        if not password:
            raise AuthProblem(f"--auth password needs a password: set ${PASSWORD_ENV}, pass --password-file FILE, "
                              f"or put {SECRETS_KEY} under [{SECRETS_SECTION}] in .streamlit/secrets.toml")
        return Access("password", remote)
    if requested == "oidc" or (requested is None and remote and oidc_configured(secrets)):
        if not oidc_configured(secrets):
            raise AuthProblem("--auth oidc needs an [auth] section in .streamlit/secrets.toml with redirect_uri, "
                              "cookie_secret and the provider's client_id, client_secret and server_metadata_url "
                              "(see Streamlit's st.login documentation)")
        try:
            import authlib  # noqa: F401 - st.login needs it
        except ImportError:
            raise AuthProblem('--auth oidc needs Authlib: pip install "streamlit[auth]"') from None
        return Access("oidc", remote)
    if requested == "none" or requested is None:
        if remote:
            raise AuthProblem(
                f"--allow-remote needs an authentication method, and none is configured: set ${PASSWORD_ENV} "
                "(or --password-file FILE) for a password, or configure [auth] in .streamlit/secrets.toml and "
                "pass --auth oidc")
        return Access("none", remote)
    raise AuthProblem(f"unknown --auth {requested!r}; use password or oidc")


def digest_equal(given: str, expected: str) -> bool:
    """Constant time in the content and length of both (digests are compared, not the texts)."""
    return hmac.compare_digest(hashlib.sha256(given.encode("utf-8")).digest(),
                               hashlib.sha256(expected.encode("utf-8")).digest())


# ---- the app side -----------------------------------------------------------------------

def gate() -> None:
    """Stop the script run here unless this session may see the pages.

    Called by app.py before any page is drawn. Without $TRACE_AUDIT_DASHBOARD_AUTH
    (the app started by `streamlit run` directly) a configured password is still
    enforced.
    """
    import streamlit as st

    mode = os.environ.get(MODE_ENV)
    if mode == "oidc":
        if not st.user.is_logged_in:
            st.title("trace-audit")
            st.write("This dashboard holds users' conversations. Sign in to continue.")
            st.button("Sign in", on_click=st.login, icon=":material/login:")
            st.stop()
        st.sidebar.button("Sign out", on_click=st.logout)
        return
    try:
        secrets = st.secrets.to_dict()
    except Exception:  # noqa: BLE001 - no secrets file, or an unreadable one: no password from there
        secrets = {}
    password = password_from(dict(os.environ), secrets)
    if mode == "password" and not password:
        st.error("The dashboard was started with password access but no password is configured now; "
                 "restart it with $TRACE_AUDIT_DASHBOARD_PASSWORD set.")
        st.stop()
    if not password or st.session_state.get(SESSION_KEY):
        return
    st.title("trace-audit")
    with st.form("ta_login"):
        given = st.text_input("Password", type="password", key="ta_password")
        sent = st.form_submit_button("Open the dashboard")
    if sent:
        client = _client_address(st)
        wait = LIMITER.attempt(client)
        if wait:
            st.error(f"Too many password attempts; wait {wait:.0f} s and try again.")
            st.stop()
        if digest_equal(given or "", password):
            LIMITER.succeeded(client)
            st.session_state[SESSION_KEY] = True
            st.rerun()
        time.sleep(WRONG_PASSWORD_DELAY)
        st.error("Wrong password.")
    st.stop()


def _client_address(st) -> str:
    try:
        address = st.context.ip_address
    except Exception:  # noqa: BLE001 - older Streamlit, or no request context
        address = None
    return address if isinstance(address, str) and address else "unknown"  # AppTest gives a mock
