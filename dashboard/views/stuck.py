"""Stuck tasks: turns still 'running' long after they started (the finish step never ran)."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import charts, context

ctx = context.get()
f = ctx.filters
st.title("Stuck tasks")
minutes = st.number_input("Stuck after (minutes)", min_value=1, max_value=7 * 24 * 60,
                          value=int(st.query_params.get("stuck", f.stuck_minutes)) if str(
                              st.query_params.get("stuck", "")).isdigit() else f.stuck_minutes,
                          step=5, key="ta_stuck_minutes")
st.query_params["stuck"] = str(minutes)
f = f.model_copy(update={"stuck_minutes": int(minutes)})
st.caption(f"Turns with status 'running' that started more than {minutes} minutes before "
           f"{ctx.ts(ctx.now)} (the data's clock: the rule run's --now, else the newest event). "
           "All of history, not only the period.")
d = ctx.wh.plan("stuck", f, ctx.now)
summary = d["summary"]
total = int(summary.loc[summary["axis"] == "age", "stuck"].sum())
st.metric("Stuck now", f"{total:,}")
if total == 0:
    st.success("No stuck turns.")
    st.stop()
left, right = st.columns(2)
with left:
    st.subheader("Age")
    st.plotly_chart(charts.stuck_histogram(summary), key="stuck_age")
with right:
    st.subheader("By day started")
    st.plotly_chart(charts.stuck_by_day(summary), key="stuck_day")
rows = d["list"]
st.subheader(f"Oldest first ({len(rows):,} of {total:,})")
st.dataframe(rows.assign(
    started_at=rows["started_at"].dt.tz_convert(f.tz).dt.strftime("%Y-%m-%d %H:%M"),
    age_hours=(rows["age_minutes"] / 60).round(1),
)[["started_at", "age_hours", "user_id", "conversation_id", "task_id", "goal", "last_seq", "last_tool",
   "last_status", "last_error", "agent_version"]], hide_index=True)
if len(rows):
    st.page_link("views/investigate.py", label=f"Investigate the oldest ({rows['task_id'].iloc[0]}) →", icon=":material/search:",
                 query_params=ctx.link_params(task=rows["task_id"].iloc[0]))
