"""Tool trends: per tool over time, and which tools got significantly worse."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import analysis, charts, context, sidebar
from ..safe import md

ctx = context.get()
f = ctx.filters
st.title("Tool trends")
c1, c2 = st.columns(2)
grain = c1.radio("Bucket", ["day", "hour"], horizontal=True, key="ta_grain",
                 index=1 if sidebar.page_param("grain") == "hour" else 0)
measure = c2.selectbox("Measure", list(charts.TREND_MEASURES), format_func=charts.TREND_MEASURES.get,
                       key="ta_measure", index=2)
sidebar.set_page_params(grain=None if grain == "day" else grain)

latency = measure in ("p50_ms", "p95_ms")
d = ctx.plan("trends", grain=grain, latency=latency)
rises = analysis.significant_rises(d["compare"])
flagged = {r.tool for r in rises}

st.subheader("Flagged: rose significantly against the previous period")
st.caption(f"Test: {analysis.TEST_RULE} (failure, verified=false and retry rates; "
           f"{f.since} – {f.until} against the {f.days} days before).")
if rises:
    for r in rises:
        st.error(md(r.sentence()), icon=":material/flag:")
else:
    st.success("No tool's failure, verified=false or retry rate rose significantly.")

series = charts.with_latency(d["latency"]) if latency else d["series"]
st.plotly_chart(charts.tool_small_multiples(series, measure, flagged), key="trend_multiples")

st.subheader("This period against the previous")
wide = analysis.tool_periods(d["compare"])
if not wide.empty:
    table = wide.assign(
        calls=wide["cur_calls"], prev_calls=wide["prev_calls"],
        failure=(wide["cur_failed"] / wide["cur_calls"].where(wide["cur_calls"] > 0)).map(analysis.pct),
        prev_failure=(wide["prev_failed"] / wide["prev_calls"].where(wide["prev_calls"] > 0)).map(analysis.pct),
        verified_false=(wide["cur_verified_false"] / wide["cur_checked"].where(wide["cur_checked"] > 0)).map(analysis.pct),
        prev_verified_false=(wide["prev_verified_false"] / wide["prev_checked"].where(wide["prev_checked"] > 0)).map(analysis.pct),
        retry=(wide["cur_retried"] / wide["cur_calls"].where(wide["cur_calls"] > 0)).map(analysis.pct),
        flagged=wide["tool"].isin(flagged),
    )[["tool", "flagged", "calls", "prev_calls", "failure", "prev_failure", "verified_false", "prev_verified_false",
       "retry"]]
    st.dataframe(table.sort_values(["flagged", "calls"], ascending=False), hide_index=True)
