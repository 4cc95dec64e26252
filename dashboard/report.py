"""The weekly reliability review: one ISO week against the week before.

`build_weekly(con, "2026-W47")` gathers the numbers (through the dashboard's own
queries, so the page and the report agree); `to_markdown` / `to_html` render it.
The HTML is one self-contained file: plotly.js is inlined once, no network needed.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from datetime import date, datetime
from urllib.parse import urlencode

import duckdb
import pandas as pd

from . import analysis, charts
from .safe import md_doc
from ..queries import dashboard_queries as dq

TOP = 10


@dataclass
class WeeklyReport:
    week: str
    since: date
    until: date
    tz: str
    run_id: str | None
    kpis: dict
    rises: list[analysis.RateRise]
    onsets: dict[str, dict]                 # tool -> onset (agent version where the jump started)
    headline: list[str]
    tools: pd.DataFrame                      # per tool, this week and the week before
    worst: pd.DataFrame
    incidents: pd.DataFrame
    incident_total: int
    new_fingerprints: pd.DataFrame
    stuck: pd.DataFrame
    stuck_total: int
    runs: pd.DataFrame
    daily: pd.DataFrame
    undated_turns: int = 0                   # turns with no time: in no week, so not in the numbers above
    undated_incidents: int = 0               # their said-but-not-done findings, listed with the week's
    generated_at: datetime = field(default_factory=lambda: datetime.now().astimezone())

    @property
    def title(self) -> str:
        return f"Weekly reliability review {self.week} ({self.since} – {self.until}, {self.tz})"

    def undated_note(self) -> str | None:
        """What the week's numbers leave out: turns with no time (as the dashboard's overview says)."""
        if not self.undated_turns:
            return None
        return (f"{self.undated_turns:,} turns have no time (transcripts that record none, such as tau-bench): "
                "they belong to no week, so they are not in the table above"
                + (f"; their {self.undated_incidents:,} said-but-not-done incidents are listed under Top incidents."
                   if self.undated_incidents else "."))

    def jump_sentences(self) -> list[str]:
        """Where each significant verified=false rise started (tool and agent version)."""
        out = []
        for r in self.rises:
            if r.measure != "verified_false":
                continue
            o = self.onsets.get(r.tool)
            where = ""
            if o:
                where = (f"; the jump started with agent version {o['agent_version']} "
                         f"(first seen {analysis.fmt_ts(o['first_seen'], self.tz)}; "
                         f"{analysis.pct(o['rate'])} verified=false on it, {o['verified_false']} of {o['steps']} checked writes)")
            out.append(f"{r.tool}: verified=false rate rose {analysis.pct(r.prev_rate)} → {analysis.pct(r.cur_rate)} "
                       f"(p {analysis.p_text(r.p)}, q {analysis.p_text(r.q)}){where}.")
        return out


def build_weekly(con: duckdb.DuckDBPyConnection, week: str, tz: str = "UTC", run_id: str | None = None,
                 lag: dq.StepLag | None = None) -> WeeklyReport:
    """Gather the report for ISO `week`. `lag` is the warehouse's step lag when the caller
    has it cached (the dashboard); otherwise it is measured here."""
    monday, sunday = dq.iso_week_bounds(week)
    dq.prepare(con)
    runs = dq.run(con, "rule_runs")
    if run_id is None and not runs.empty:
        run_id = str(runs["run_id"].iloc[0])
    f = dq.Filters(since=monday, until=sunday, tz=tz, run_id=run_id)
    now = dq.data_clock(con, run_id)
    p = f.params(now=now, lag=lag if lag is not None else dq.step_lag(con))
    # One join of the two weeks' steps to their turns, read by overview_daily, tool_compare
    # and version_tool_rates.
    dq.run_stage(con, "stage_period_steps", p)
    daily = dq.run(con, "overview_daily", p)
    stuck_total = int(dq.run(con, "stuck_count", p)["stuck"].iloc[0])
    k = analysis.kpis(daily, stuck_total)
    compare = dq.run(con, "tool_compare", p)
    rises = analysis.significant_rises(compare)
    version_rates = dq.run(con, "version_tool_rates", p)
    onsets = {}
    for r in rises:
        if r.measure == "verified_false":
            o = analysis.onset(version_rates, r.tool, r.prev_rate)
            if o:
                onsets[r.tool] = o
    options = dq.run(con, "agent_versions")
    new_fp = dq.run(con, "new_fingerprints", {**p, "limit": TOP})
    headline = analysis.what_changed(k, rises, analysis.new_versions(options, p["since"], p["until"]), new_fp, tz)
    tools = analysis.tool_periods(compare)
    worst = tools[tools["cur_calls"] >= analysis.MIN_CALLS].assign(
        problem_rate=lambda d: d["cur_problems"] / d["cur_calls"],
        prev_problem_rate=lambda d: d["prev_problems"] / d["prev_calls"].where(d["prev_calls"] > 0),
    ).sort_values(["problem_rate", "cur_calls"], ascending=[False, False]).head(5)
    incidents = _nulls(dq.run(con, "incidents_list", {**p, "limit": TOP}))
    stuck = _nulls(dq.run(con, "stuck_tasks", {**p, "limit": TOP}))
    undated = dq.run(con, "undated", p).iloc[0]
    return WeeklyReport(
        week=f"{monday.isocalendar().year}-W{monday.isocalendar().week:02d}", since=monday, until=sunday, tz=tz,
        run_id=run_id, kpis=k, rises=rises, onsets=onsets, headline=headline, tools=tools, worst=worst,
        incidents=incidents, incident_total=k["incidents"]["current"], new_fingerprints=new_fp, stuck=stuck,
        stuck_total=stuck_total, runs=runs.head(5), daily=analysis.current(daily),
        undated_turns=int(undated["turns"]), undated_incidents=int(undated["incidents"]),
    )


def _nulls(df: pd.DataFrame) -> pd.DataFrame:
    """Missing values as None, so `x or default` works on rows."""
    return df.astype(object).where(df.notna(), None)


KPI_ROWS = [
    ("turns", "Turns", "count"),
    ("incidents", "Said-but-not-done incidents", "count"),
    ("verified_rate", "Verified rate of writes", "rate"),
    ("verified_false", "verified=false steps", "count"),
    ("stuck_now", "Stuck turns now", "count"),
]


def _kpi_cells(rep: WeeklyReport) -> list[tuple[str, str, str, str]]:
    rows = []
    for key, label, kind in KPI_ROWS:
        cur, prev = rep.kpis[key]["current"], rep.kpis[key]["previous"]
        if kind == "rate":
            rows.append((label, analysis.pct(prev), analysis.pct(cur),
                         "" if cur is None or prev is None else f"{100 * (cur - prev):+.1f} pts"))
        else:
            rows.append((label, "—" if prev is None else f"{prev:,}", f"{cur:,}", analysis.change(cur, prev)))
    return rows


DASHBOARD_URL_ENV = "TRACE_AUDIT_DASHBOARD_URL"


def dashboard_url() -> str:
    """Where the dashboard is served, for the report's links: $TRACE_AUDIT_DASHBOARD_URL (the
    address people open it at, e.g. behind a proxy), else `trace-audit dashboard`'s default."""
    import os

    return os.environ.get(DASHBOARD_URL_ENV) or "http://localhost:8501"


def investigate_link(base_url: str | None, task_id: str | None, rep: WeeklyReport,
                     reply_id: str | None = None) -> str | None:
    """The Investigate URL of one incident: its turn and its reply (a reply with no turn opens too)."""
    if not base_url or not (task_id or reply_id):
        return None
    q = {k: v for k, v in (("turn", task_id), ("reply", reply_id)) if v}
    q.update({"from": rep.since.isoformat(), "to": rep.until.isoformat()})
    if rep.tz:
        q["tz"] = rep.tz
    return f"{base_url.rstrip('/')}/investigate?{urlencode(q)}"


def _excerpt(text, n: int = 80) -> str:
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    t = " ".join(str(text).split())
    return t if len(t) <= n else t[: n - 1] + "…"


def _md_cell(x) -> str:
    return md_doc(x)


class _Raw(str):
    """A cell already written as Markdown by the report itself (a link to the dashboard)."""


def _md_table(header: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(c if isinstance(c, _Raw) else _md_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def sections(rep: WeeklyReport, base_url: str | None):
    """(title, header, rows, empty note) for every table, shared by both renderers."""
    tz = rep.tz
    worst = [[r.tool, f"{r.cur_calls:,}", analysis.pct(r.problem_rate), analysis.pct(r.prev_problem_rate),
              f"{r.cur_verified_false:,}", f"{r.cur_failed:,}"] for r in rep.worst.itertuples(index=False)]
    inc = []
    for r in rep.incidents.itertuples(index=False):
        link = investigate_link(base_url, r.task_id, rep, getattr(r, "message_id", None))
        inc.append([analysis.fmt_ts(r.event_time, tz), r.kind, r.user_id or "", _excerpt(r.reply, 60),
                    _excerpt(r.tools, 60), (r.task_id or "(no task)", link)])
    fps = [[r.tool, r.fingerprint, f"{r.steps:,}", analysis.fmt_ts(r.first_seen, tz)]
           for r in rep.new_fingerprints.itertuples(index=False)]
    stuck = [[analysis.fmt_ts(r.started_at, tz), f"{r.age_minutes / 60:.1f} h", r.user_id or "", r.task_id,
              f"{r.last_tool or ''} ({r.last_status or 'no step'})"] for r in rep.stuck.itertuples(index=False)]
    runs = []
    for r in rep.runs.itertuples(index=False):
        runs.append([r.run_id, analysis.fmt_ts(r.started_at, tz), f"{int(r.finding_count or 0):,}",
                     f"{int(r.rules_evaluated)}", "none" if not r.failed_rules else f"{int(r.failed_rules)} failed"])
    return [
        ("Worst tools (share of calls failed or not verified)",
         ["tool", "calls", "this week", "week before", "verified=false", "failed"], worst, "no tool calls this week"),
        (f"Top incidents ({rep.incident_total:,} this week"
         + (f", and {rep.undated_incidents:,} with no time" if rep.undated_incidents else "") + ")",
         ["time", "kind", "user", "reply", "tools", "turn"], inc,
         "no said-but-not-done incidents" if rep.run_id else "no rule run yet: run `trace-audit rules run`"),
        ("New error patterns (first seen this week)", ["tool", "fingerprint", "steps", "first seen"], fps,
         "no new error patterns"),
        (f"Stuck turns ({rep.stuck_total:,} still running past the threshold)",
         ["started", "age", "user", "task", "last step"], stuck, "no stuck turns"),
        ("Rule-run health", ["run", "started", "findings", "rules", "failed rules"], runs,
         "no rule run yet: run `trace-audit rules run`"),
    ]


def to_markdown(rep: WeeklyReport, base_url: str | None = None) -> str:
    out = [f"# {rep.title}", ""]
    out += ["## What changed", ""] + [f"- {md_doc(line)}" for line in rep.headline] + [""]
    jumps = rep.jump_sentences()
    if jumps:
        out += ["## Where the verified=false jump started", ""] + [f"- {md_doc(s)}" for s in jumps] + [""]
    out += [f"Flagging rule: {analysis.TEST_RULE}.", ""]
    out += ["## The week against the week before", "",
            _md_table(["measure", "week before", "this week", "change"], [list(r) for r in _kpi_cells(rep)]), ""]
    if rep.undated_note():
        out += [md_doc(rep.undated_note()), ""]
    for title, header, rows, none in sections(rep, base_url):
        out += [f"## {title}", ""]
        if rows:
            rows = [[_Raw(f"[{md_doc(c[0])}](<{c[1]}>)") if isinstance(c, tuple) and c[1]
                     else (c[0] if isinstance(c, tuple) else c) for c in r] for r in rows]
            out += [_md_table(header, rows), ""]
        else:
            out += [f"_{none}_", ""]
    out += [f"_Rule run: {rep.run_id or 'none'} · generated {rep.generated_at:%Y-%m-%d %H:%M %Z} by trace-audit_", ""]
    return "\n".join(out)


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans CJK SC",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;width:100%;font-size:.9em}th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f6f8}.jump{background:#fff4f4;border-left:4px solid #e73f74;padding:.6em 1em}.note{color:#666;font-style:italic}
"""


def to_html(rep: WeeklyReport, base_url: str | None = None) -> str:
    e = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{e(rep.title)}</title>",
             f"<style>{CSS}</style></head><body>", f"<h1>{e(rep.title)}</h1>", "<h2>What changed</h2><ul>"]
    parts += [f"<li>{e(line)}</li>" for line in rep.headline] + ["</ul>"]
    jumps = rep.jump_sentences()
    if jumps:
        parts += ["<h2>Where the verified=false jump started</h2><div class='jump'>"]
        parts += [f"<p>{e(s)}</p>" for s in jumps] + ["</div>"]
    parts += [f"<p class='note'>Flagging rule: {e(analysis.TEST_RULE)}.</p>"]
    parts += ["<h2>The week against the week before</h2><table><tr><th>measure</th><th>week before</th>"
              "<th>this week</th><th>change</th></tr>"]
    parts += ["<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in _kpi_cells(rep)]
    parts += ["</table>"]
    if rep.undated_note():
        parts.append(f"<p class='note'>{e(rep.undated_note())}</p>")
    figs = [charts.daily_overview(rep.daily), charts.weekly_tool_rates(rep.tools)]
    for i, fig in enumerate(figs):
        # plotly.js goes inline once so the file opens offline.
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(i == 0), config={"displaylogo": False}))
    for title, header, rows, none in sections(rep, base_url):
        parts.append(f"<h2>{e(title)}</h2>")
        if not rows:
            parts.append(f"<p class='note'>{e(none)}</p>")
            continue
        parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")
        for r in rows:
            cells = []
            for c in r:
                if isinstance(c, tuple):
                    text, link = c
                    cells.append(f"<td><a href='{e(link)}'>{e(text)}</a></td>" if link else f"<td>{e(text)}</td>")
                else:
                    cells.append(f"<td>{e(str(c))}</td>")
            parts.append("<tr>" + "".join(cells) + "</tr>")
        parts.append("</table>")
    parts.append(f"<p class='note'>Rule run: {e(rep.run_id or 'none')} · generated "
                 f"{rep.generated_at:%Y-%m-%d %H:%M %Z} by trace-audit</p></body></html>")
    return "\n".join(parts)
