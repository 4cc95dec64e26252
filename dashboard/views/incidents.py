"""Said but not done: replies that claimed success for work that was not done."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import charts, context, sidebar, turns
from ...queries import marks
from ..safe import md, plain

PAGE = 25
ALL = "(every kind)"

ctx = context.get()
st.title("Said but not done")
st.caption("Replies that told the user something was done when the steps say it was not. "
           f"From rule run {md(ctx.filters.run_id or '—')} · times in {ctx.filters.tz}")
if not ctx.has_run:
    context.no_rule_run_note()
    st.stop()

everything = ctx.plan("incidents")
total = int(everything["daily"]["incidents"].sum())
by_kind = everything["daily"].groupby("kind")["incidents"].sum().sort_values(ascending=False)
cols = context.metric_columns(1 + len(by_kind))
cols[0].metric("Incidents", f"{total:,}")
for col, (k, n) in zip(cols[1:], by_kind.items()):
    col.metric(k.replace("_", " "), f"{int(n):,}")
daily = everything["daily"]
undated = int(daily.loc[daily["day"].isna(), "incidents"].sum())
if undated:
    st.caption(f"{undated:,} of them have no time (undated transcripts): they are in the counts and the list, "
               "not in the chart.")
st.plotly_chart(charts.incidents_by_kind(daily[daily["day"].notna()]), key="incidents_kind")

kinds = [ALL] + sorted(set(by_kind.index) | ({sidebar.page_param("kind")} - {None}))
wanted = sidebar.page_param("kind")
kind = st.selectbox("Kind", kinds, index=kinds.index(wanted) if wanted in kinds else 0,
                    format_func=lambda k: k.replace("_", " "), key="ta_incident_kind")
kind = None if kind == ALL else kind
sidebar.set_page_params(kind=kind)
rows = ctx.plan("incidents", kind=kind)["list"] if kind else everything["list"]

st.subheader(f"Incidents ({len(rows):,} newest shown)" if kind is None and len(rows) < total
             else f"Incidents ({len(rows):,})")
if rows.empty:
    st.info("No said-but-not-done incidents in this period.")
    st.stop()

table = turns.times_as_text(rows, ctx.filters.tz).assign(reply=rows["reply"].fillna("").str.slice(0, 120))
table = table.assign(review=rows["mark"].map(lambda m: marks.WORDS.get(m, "") if isinstance(m, str) else ""))
table = table[["event_time", "kind", "review", "user_id", "conversation_id", "reply", "tools", "task_id", "message_id"]]
st.dataframe(table.rename(columns={"event_time": "time"}), hide_index=True,
             column_config={"reply": st.column_config.TextColumn("reply (excerpt)", width="large"),
                            "tools": st.column_config.TextColumn("tools used", width="medium")})

st.markdown("**Open an incident** (each link opens that turn, or the reply when it has no turn)")
pages = (len(rows) + PAGE - 1) // PAGE
page = st.number_input("Page", 1, max(pages, 1), 1, key="ta_incident_page") if pages > 1 else 1
for i in range((page - 1) * PAGE, min(page * PAGE, len(rows))):
    r = rows.iloc[i]
    review = f"{marks.WORDS[r['mark']]} · " if isinstance(r["mark"], str) else ""
    # each part through plain(): a transcript with no user id shows "—", not pandas' "nan"
    label = (f"{ctx.ts(r['event_time'])} · {plain(r['kind']).replace('_', ' ')} · {review}{plain(r['user_id'])} · "
             f"{plain(r['reply'] if isinstance(r['reply'], str) else '')[:60]}")
    st.page_link("views/investigate.py", label=md(label),
                 query_params=ctx.link_params(**turns.incident_link(r), kind=kind))
