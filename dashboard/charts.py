"""Pure chart functions: query results in, plotly figures out (no Streamlit, no SQL),
shared by the pages and the HTML weekly report."""

from __future__ import annotations

import html

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

KIND_COLORS = {
    "not_executed": "#7f3c8d", "failed": "#e73f74", "unverified": "#f2b701",
    "not_created": "#11a579", "partial": "#3969ac", "unknown": "#a5aa99",
}
HEIGHT = 320


def _as_text(value):
    """Plotly reads a subset of HTML in every label (<a href>, <b>, <br>): a tool name or an
    agent version from the data is shown as its characters (entities, which plotly displays)."""
    if isinstance(value, str):
        return html.escape(value, quote=False)
    return value


def _text_only(fig: go.Figure) -> go.Figure:
    for trace in fig.data:
        for attr in ("x", "y", "text", "hovertext", "customdata"):
            vals = getattr(trace, attr, None)
            if vals is not None and not isinstance(vals, str) and len(vals) and any(isinstance(v, str) for v in vals):
                try:
                    setattr(trace, attr, [_as_text(v) for v in vals])
                except ValueError:  # a property that takes numbers only
                    pass
        if getattr(trace, "name", None):
            trace.name = _as_text(trace.name)
        if getattr(trace, "legendgroup", None):
            trace.legendgroup = _as_text(trace.legendgroup)
    for ann in fig.layout.annotations or ():
        ann.text = _as_text(ann.text)
    return fig


def _layout(fig: go.Figure, title: str | None = None, height: int = HEIGHT) -> go.Figure:
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return _text_only(fig)


def empty(message: str) -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return _layout(fig, height=160)


def daily_overview(daily: pd.DataFrame) -> go.Figure:
    """Turns (bars, left axis) with incidents and verified=false steps (lines, right axis)."""
    if daily.empty:
        return empty("no turns in this period")
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_bar(x=daily["day"], y=daily["turns"], name="turns", marker_color="#c9d6e8")
    fig.add_scatter(x=daily["day"], y=daily["incidents"], name="said but not done", mode="lines+markers",
                    line=dict(color="#e73f74"), secondary_y=True)
    fig.add_scatter(x=daily["day"], y=daily["verified_false"], name="verified=false steps", mode="lines+markers",
                    line=dict(color="#f2b701"), secondary_y=True)
    fig.update_yaxes(title_text="turns", secondary_y=False)
    fig.update_yaxes(title_text="incidents / steps", secondary_y=True)
    return _layout(fig)


def incidents_by_kind(daily: pd.DataFrame) -> go.Figure:
    if daily.empty:
        return empty("no said-but-not-done incidents in this period")
    fig = px.bar(daily, x="day", y="incidents", color="kind", color_discrete_map=KIND_COLORS,
                 labels={"day": "", "incidents": "incidents", "kind": "kind"})
    return _layout(fig)


def vf_heatmap(hours: pd.DataFrame) -> go.Figure:
    """verified=false steps by tool (rows) and local hour of day (columns)."""
    if hours.empty:
        return empty("no verified=false steps in this period")
    grid = hours.pivot_table(index="tool", columns="hour", values="verified_false", aggfunc="sum", fill_value=0)
    grid = grid.reindex(columns=range(24), fill_value=0)
    grid = grid.loc[grid.sum(axis=1).sort_values().index]
    fig = go.Figure(go.Heatmap(z=grid.values, x=[f"{h:02d}" for h in grid.columns], y=grid.index.tolist(),
                               colorscale="YlOrRd", colorbar=dict(title="steps"),
                               hovertemplate="%{y} at %{x}h: %{z} verified=false<extra></extra>"))
    fig.update_xaxes(title_text="hour of day (local)")
    return _layout(fig, height=max(220, 40 + 28 * len(grid)))


def vf_rate_daily(daily: pd.DataFrame, top: int = 8) -> go.Figure:
    if daily.empty:
        return empty("no checked writes in this period")
    worst = (daily.groupby("tool")["verified_false"].sum().sort_values(ascending=False).head(top).index)
    d = daily[daily["tool"].isin(worst)]
    fig = px.line(d, x="day", y="verified_false_rate", color="tool", markers=True,
                  labels={"day": "", "verified_false_rate": "verified=false rate"})
    fig.update_yaxes(tickformat=".0%")
    return _layout(fig)


def version_rates(versions: pd.DataFrame) -> go.Figure:
    if versions.empty:
        return empty("no checked writes in this period")
    d = versions.assign(label=versions["agent_version"] + " · " + versions["model"])
    fig = px.bar(d, x="label", y="verified_false_rate", text="verified_false",
                 labels={"label": "agent version · model", "verified_false_rate": "verified=false rate"})
    fig.update_yaxes(tickformat=".0%")
    return _layout(fig)


def stuck_histogram(summary: pd.DataFrame) -> go.Figure:
    ages = summary[summary["axis"] == "age"]
    if ages.empty:
        return empty("no stuck turns")
    fig = px.bar(ages, x="bucket", y="stuck", labels={"bucket": "age", "stuck": "stuck turns"})
    return _layout(fig)


def stuck_by_day(summary: pd.DataFrame) -> go.Figure:
    days = summary[summary["axis"] == "day"]
    if days.empty:
        return empty("no stuck turns")
    fig = px.bar(days, x="bucket", y="stuck", labels={"bucket": "day started", "stuck": "still running"})
    return _layout(fig)


TREND_MEASURES = {
    "calls": "call volume", "failure_rate": "failure rate", "verified_false_rate": "verified=false rate",
    "retry_rate": "retry rate", "p50_ms": "p50 latency (ms)", "p95_ms": "p95 latency (ms)",
}


def with_latency(latency: pd.DataFrame) -> pd.DataFrame:
    """tool_latency rows (q = [p50, p95]) -> columns p50_ms, p95_ms."""
    q = latency["q"].tolist()
    return latency.assign(p50_ms=[x[0] if x is not None else None for x in q],
                          p95_ms=[x[1] if x is not None else None for x in q]).drop(columns=["q"])


def tool_small_multiples(series: pd.DataFrame, measure: str, flagged: set[str] = frozenset(), cols: int = 3) -> go.Figure:
    """One small panel per tool for one measure; flagged tools drawn in red."""
    if series.empty:
        return empty("no tool calls in this period")
    tools = sorted(series["tool"].unique(), key=lambda t: (t not in flagged, t))
    rows = (len(tools) + cols - 1) // cols
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[("⚑ " if t in flagged else "") + t for t in tools],
                        shared_xaxes=True, vertical_spacing=0.12 if rows > 1 else 0.2)
    for i, t in enumerate(tools):
        d = series[series["tool"] == t]
        fig.add_scatter(x=d["bucket"], y=d[measure], mode="lines", name=t, showlegend=False,
                        line=dict(color="#e73f74" if t in flagged else "#3969ac"),
                        row=i // cols + 1, col=i % cols + 1)
    if measure.endswith("_rate"):
        fig.update_yaxes(tickformat=".0%")
    return _layout(fig, title=TREND_MEASURES.get(measure, measure), height=60 + 170 * rows)


def rules_bar(summary: pd.DataFrame) -> go.Figure:
    if summary.empty:
        return empty("no findings in this run and period")
    fig = px.bar(summary, x="rule_id", y="findings", color="severity",
                 color_discrete_map={"block": "#c0392b", "review": "#e67e22", "warn": "#f1c40f", "info": "#95a5a6"},
                 labels={"rule_id": "rule"})
    return _layout(fig)


def runs_history(runs: pd.DataFrame) -> go.Figure:
    if runs.empty:
        return empty("no rule runs")
    fig = px.line(runs.sort_values("started_at"), x="started_at", y="finding_count", markers=True,
                  labels={"started_at": "run started", "finding_count": "findings"})
    return _layout(fig, height=240)


def weekly_tool_rates(compare_wide: pd.DataFrame, top: int = 8, min_checked: int = 30) -> go.Figure:
    """This week against the last: verified=false rate per tool (grouped bars), tools with at
    least `min_checked` checked writes this week (a rate over 3 calls says nothing)."""
    d = compare_wide[compare_wide["cur_checked"] >= min_checked].copy()
    if d.empty:
        return empty("no checked writes")
    d["this week"] = d["cur_verified_false"] / d["cur_checked"].where(d["cur_checked"] > 0)
    d["week before"] = d["prev_verified_false"] / d["prev_checked"].where(d["prev_checked"] > 0)
    d = d.sort_values("this week", ascending=False).head(top)
    long = d.melt(id_vars="tool", value_vars=["week before", "this week"], var_name="week", value_name="rate")
    fig = px.bar(long, x="tool", y="rate", color="week", barmode="group",
                 color_discrete_map={"week before": "#a5aa99", "this week": "#e73f74"},
                 labels={"rate": "verified=false rate", "tool": ""})
    fig.update_yaxes(tickformat=".0%")
    return _layout(fig)
