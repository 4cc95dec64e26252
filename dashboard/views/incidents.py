"""Said but not done: replies that claimed success for work that was not done."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import charts, context

ctx = context.get()
st.title("Said but not done")
st.caption("Replies that told the user something was done when the steps say it was not. "
           f"From rule run {ctx.filters.run_id or '—'} · times in {ctx.filters.tz}")
if not ctx.has_run:
    context.no_rule_run_note()
    st.stop()

d = ctx.plan("incidents")
total = int(d["daily"]["incidents"].sum())
by_kind = d["daily"].groupby("kind")["incidents"].sum().sort_values(ascending=False)
cols = st.columns(1 + len(by_kind))
cols[0].metric("Incidents", f"{total:,}")
for col, (kind, n) in zip(cols[1:], by_kind.items()):
    col.metric(kind.replace("_", " "), f"{int(n):,}")

st.plotly_chart(charts.incidents_by_kind(d["daily"]), key="incidents_kind")

rows = d["list"]
st.subheader(f"Incidents ({len(rows):,} newest shown)" if len(rows) < total else f"Incidents ({total:,})")
if rows.empty:
    st.info("No said-but-not-done incidents in this period.")
    st.stop()
table = rows.assign(
    time=rows["event_time"].dt.tz_convert(ctx.filters.tz).dt.strftime("%Y-%m-%d %H:%M"),
    reply=rows["reply"].fillna("").str.slice(0, 120),
)[["time", "kind", "user_id", "conversation_id", "reply", "tools", "task_id"]]
st.session_state["_ta_incident_ids"] = rows["task_id"].tolist()


def _open_selected():
    # A row click opens that turn in Investigate (run after the click, before the rerun).
    picked = st.session_state["incident_table"].selection.rows
    if picked:
        st.session_state["_ta_open_task"] = st.session_state["_ta_incident_ids"][picked[0]]


if st.session_state.get("_ta_open_task"):
    st.switch_page("views/investigate.py", query_params=ctx.link_params(task=st.session_state.pop("_ta_open_task")))

st.dataframe(table, hide_index=True, on_select=_open_selected, selection_mode="single-row", key="incident_table",
             column_config={"reply": st.column_config.TextColumn("reply (excerpt)", width="large"),
                            "tools": st.column_config.TextColumn("tools and outcome", width="medium")})
choices = [r for r in rows.itertuples(index=False) if r.task_id]
label = {r.task_id: f"{ctx.ts(r.event_time)} · {r.user_id} · {r.kind} · {(r.reply or '')[:50]}" for r in choices}
default = choices[0].task_id if choices else None
if choices:
    c1, c2 = st.columns([4, 1])
    task = c1.selectbox("Open a turn", list(label), index=list(label).index(default) if default in label else 0,
                        format_func=label.get, key="incident_pick",
                        help="Click a row in the table, or pick a turn here, to open it in the investigation view.")
    c2.page_link("views/investigate.py", label="Investigate →", icon=":material/search:",
                 query_params=ctx.link_params(task=task))
