"""The served dashboard in a real headless chromium (Debian's, never downloaded):
every page loads with its key text and no exception box, and an incident opens in
the investigation view. Screenshots go to a temp dir ($TRACE_AUDIT_SCREENSHOTS to keep them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dashboard_support import build_sample_db, served_dashboard

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PERIOD = "from=2026-11-16&to=2026-11-22"
PAGES = [  # url path ("" is the default page, Overview), text that must appear
    ("", "What changed"),
    ("incidents", "Said but not done"),
    ("patterns", "By tool and error fingerprint"),
    ("stuck", "Stuck now"),
    ("trends", "Flagged: rose significantly"),
    ("investigate", "Enter a user id"),
    ("weekly", "What changed"),
    ("rules", "Run history"),
    ("users", "most incidents first"),
    ("conversations", "most incidents first"),
]

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed")]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    work = tmp_path_factory.mktemp("browser")
    db = str(work / "sample.duckdb")
    build_sample_db(db, work)
    with served_dashboard(db, work) as url:
        yield url


@pytest.fixture(scope="module")
def page(served):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
        yield ctx.new_page()
        browser.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    keep = os.environ.get("TRACE_AUDIT_SCREENSHOTS")
    d = Path(keep) if keep else tmp_path_factory.mktemp("screens")
    d.mkdir(parents=True, exist_ok=True)
    return d


def settle(page, text: str) -> None:
    """Wait until `text` shows and Streamlit has finished running the script."""
    page.get_by_text(text, exact=False).first.wait_for(timeout=90_000)  # 2 shared cores: a cold page is slow
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=30_000)
    page.wait_for_timeout(800)  # let plotly finish drawing before a screenshot


def test_every_page_renders_without_exceptions(served, page, shots):
    for path, text in PAGES:
        page.goto(f"{served}/{path}?{PERIOD}", wait_until="domcontentloaded")
        settle(page, text)
        assert page.locator('[data-testid="stException"]').count() == 0, f"exception box on {path}"
        assert page.get_by_text("Page not found").count() == 0, f"/{path} is not a page"
        page.screenshot(path=str(shots / f"{path or 'overview'}.png"), full_page=True)
    # the sidebar filters stay in the URL after navigation
    assert "from=2026-11-16" in page.url


def test_weekly_review_names_the_incident(served, page, shots):
    page.goto(f"{served}/weekly?{PERIOD}&week=2026-W47", wait_until="domcontentloaded")
    settle(page, "agent version 2.4.0")
    body = page.locator("section.main, [data-testid='stMain']").first.inner_text()
    assert "create_reminder" in body and "2.4.0" in body
    page.screenshot(path=str(shots / "weekly-w47.png"), full_page=True)


HEADLINE = {"not_executed": "not executed", "failed": "failed", "unverified": "unverified",
            "not_created": "not created", "partial": "partly done"}


def incident_links(page) -> list[str]:
    """The hrefs of the incident list's own links to the investigation view."""
    page.wait_for_selector("[data-testid='stMain'] a[href*='investigate']", timeout=60_000)
    return page.eval_on_selector_all("[data-testid='stMain'] a[href*='investigate']",
                                     "els => els.map(e => e.getAttribute('href'))")


@pytest.mark.parametrize("kind", sorted(HEADLINE))
def test_incidents_of_every_kind_open_from_the_list(served, page, shots, kind):
    page.goto(f"{served}/incidents?{PERIOD}&kind={kind}", wait_until="domcontentloaded")
    settle(page, "Open an incident")
    links = incident_links(page)
    assert links, f"no incident link for {kind}"
    # the first link, and for not_executed also a reply with no turn (no turn= in its link)
    chosen = [links[0]] + ([h for h in links if "turn=" not in h][:1] if kind == "not_executed" else [])
    assert len(chosen) == (2 if kind == "not_executed" else 1), links
    for href in chosen:
        page.goto(href if href.startswith("http") else f"{served}/{href.lstrip('/')}", wait_until="domcontentloaded")
        settle(page, "Verdict:")
        body = page.locator("[data-testid='stMain']").first.inner_text()
        assert f"Verdict: {HEADLINE[kind]}" in body, (href, body[:600])
        assert "What a correct system should have replied" in body
        assert page.locator('[data-testid="stException"]').count() == 0
        # the URL names the turn (or the reply), so the link opens the same thing again
        assert "turn=" in page.url or "reply=" in page.url
        if "turn=" in href:
            turn = href.split("turn=")[1].split("&")[0]
            assert f"Turn {turn}" in body.replace("\\", "")
        else:
            assert "A reply with no turn" in body
    page.screenshot(path=str(shots / f"investigate-{kind}.png"), full_page=True)


def test_every_request_stays_on_the_dashboard_origin(served, page, shots):
    # A fresh context (no cache) 800 px wide: every request of every page, the favicon too.
    seen: list[str] = []
    ctx = page.context.browser.new_context(viewport={"width": 800, "height": 1000})
    pg = ctx.new_page()
    pg.on("request", lambda r: seen.append(r.url))
    for path, text in PAGES:
        pg.goto(f"{served}/{path}?{PERIOD}", wait_until="domcontentloaded")
        settle(pg, text)
        pg.wait_for_timeout(1500)
        pg.screenshot(path=str(shots / f"narrow-{path or 'overview'}.png"), full_page=True)
    ctx.close()
    assert len(seen) > 20
    foreign = sorted({u for u in seen if not (u.startswith(served) or u.startswith(("data:", "blob:")))})
    assert not foreign, foreign
