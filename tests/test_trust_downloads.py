"""The weekly report is handed only to a signed-in, live session: a real dashboard server behind a
password, a real chromium that signs in and saves both reports, then every address the browser
fetched asked again without its session, and the saved file's own address opened elsewhere.

Before, `st.download_button` served the report at /media/<id>.md, and that address still gave the
whole report (200) to a request with no cookie after the browser had closed."""

from __future__ import annotations

import base64
import os
import re
import urllib.error
import urllib.request

import pytest
from streamlit.testing.v1 import AppTest

from dashboard_support import TZ, build_sample_db, served_dashboard
from test_browser_dashboard import ARGS, CHROMIUM, settle
from trace_audit.cli.main import main
from trace_audit.dashboard import auth
from trace_audit.dashboard.serve import app_path

PASSWORD = "weekly-🔒-review"
GENERATED = re.compile(r"^_Rule run: .* · generated .* by trace-audit_$")


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> str:
    work = tmp_path_factory.mktemp("downloads")
    path = str(work / "sample.duckdb")
    build_sample_db(path, work)
    return path


def cli_report(db: str, week: str, base: str, fmt: str, capsys) -> str:
    assert main(["report", "--db", db, "--week", week, "--tz", TZ, "--format", fmt, "--dashboard-url", base]) == 0
    return capsys.readouterr().out


def same_report(saved: str, printed: str) -> None:
    """Equal but for the minute it was generated in."""
    a, b = saved.splitlines(), printed.splitlines()
    assert len(a) == len(b) > 20
    for x, y in zip(a, b):
        assert x == y or (GENERATED.match(x) and GENERATED.match(y)), (x, y)


def fetch(url: str) -> tuple[int, bytes]:
    """GET with no cookie, no session: what anyone who learnt the address would get."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed")
def test_the_report_reaches_only_the_signed_in_session(sample_db, tmp_path, capsys):
    from playwright.sync_api import sync_playwright

    env = {auth.PASSWORD_ENV: PASSWORD, "HOME": str(tmp_path)}
    with served_dashboard(sample_db, tmp_path, auth.Access("password", remote=False), env) as url, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page = ctx.new_page()
        answered: list[tuple[str, int, dict]] = []
        page.on("response", lambda r: answered.append((r.url, r.status, r.headers)))
        page.goto(f"{url}/weekly", wait_until="domcontentloaded")
        page.locator("input[type=password]").fill(PASSWORD)
        page.get_by_role("button", name="Open the dashboard").click()
        settle(page, "What changed")
        page.get_by_role("link", name="Weekly review").click()
        settle(page, "Rule-run health")

        saved = {}
        for label in ("Markdown report", "HTML report (self-contained)"):
            with page.expect_download(timeout=120_000) as info:
                page.get_by_role("button", name=label).click()
            dl = info.value
            assert dl.url.startswith("blob:"), dl.url  # made in the page, not fetched from the server
            saved[dl.suggested_filename] = (dl.url, open(dl.path(), "rb").read())
        week = re.match(r"trace-audit-(\d{4}-W\d\d)\.md$", [n for n in saved if n.endswith(".md")][0]).group(1)
        md_url, md_bytes = saved[f"trace-audit-{week}.md"]
        html_bytes = saved[f"trace-audit-{week}.html"][1]

        # the saved bytes are the report: what `trace-audit report` prints for that week and address
        same_report(md_bytes.decode("utf-8"), cli_report(sample_db, week, url, "md", capsys))
        printed_html = cli_report(sample_db, week, url, "html", capsys)
        html_text = html_bytes.decode("utf-8")
        title = printed_html.split("<title>")[1].split("</title>")[0]
        assert f"<title>{title}</title>" in html_text and week in title
        assert html_text.count("<tr>") == printed_html.count("<tr>") > 10
        assert len(html_bytes) > 1_000_000  # plotly.js inline: the file opens offline

        # no answer the browser got was the report, nor a file to save
        assert len(answered) > 20
        assert not [u for u, _, h in answered if "attachment" in h.get("content-disposition", "")]
        ctx.close()  # the session ends with its page

        # every address it fetched, asked again without the session: none gives the report
        first_line = md_bytes.splitlines()[0]
        for address in sorted({u for u, _, _ in answered if u.startswith(url)}):
            status, body = fetch(address)
            assert first_line not in body and title.encode() not in body, (address, status)

        # the file's own address is the closed page's: elsewhere it opens nothing
        other = browser.new_context().new_page()
        other.goto(url + "/_stcore/health")
        outcome = other.evaluate("u => fetch(u).then(r => 'status ' + r.status, e => 'failed: ' + e)", md_url)
        assert outcome.startswith("failed"), outcome

        # and a browser that has not signed in is never offered it
        other.goto(f"{url}/weekly", wait_until="domcontentloaded")
        other.locator("input[type=password]").wait_for(timeout=60_000)
        assert other.get_by_role("button", name="Markdown report").count() == 0
        browser.close()


def payload(at: AppTest) -> bytes:
    """The bytes inside the page's download frame."""
    frames = at.get("iframe")
    assert len(frames) == 1
    doc = frames[0].proto.srcdoc
    return base64.b64decode(re.search(r"<script id='payload' type='application/octet-stream'>([A-Za-z0-9+/=]*)"
                                      r"</script>", doc).group(1))


def test_the_report_is_made_on_click_and_served_by_no_url(monkeypatch, sample_db, capsys):
    monkeypatch.setenv("TRACE_AUDIT_DB", sample_db)
    monkeypatch.delenv(auth.PASSWORD_ENV, raising=False)
    monkeypatch.setenv(auth.MODE_ENV, "none")
    monkeypatch.delenv("TRACE_AUDIT_DASHBOARD_URL", raising=False)
    at = AppTest.from_file(app_path(), default_timeout=60)
    at.query_params["week"] = "2026-W47"
    at.run()
    at.switch_page("views/weekly.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.get("download_button") and not at.get("iframe")  # nothing made, nothing stored
    at.button(key="ta_download_md").click().run()
    printed = cli_report(sample_db, "2026-W47", "http://localhost:8501", "md", capsys)
    same_report(payload(at).decode("utf-8"), printed)
    at.run()
    assert not at.get("iframe")  # the next run drops the frame and its bytes
