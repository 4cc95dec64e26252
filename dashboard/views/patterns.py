"""verified=false patterns: which write path fails its read-back, how, since when, for whom."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import analysis, charts, context, systemic as sys_rank
from ..safe import md

ctx = context.get()
st.title("verified=false patterns")
st.caption("Steps whose read-back did not confirm the write, grouped by tool and error fingerprint "
           "(numbers, ids, times and quoted text removed, so one fault is one group). "
           f"Times in {ctx.filters.tz}.")

d = ctx.plan("patterns")
fp = sys_rank.rank_systemic(d["fingerprints"], d["previous"])
total = int(d["hours"]["verified_false"].sum())
c = context.metric_columns(4, per_row=2)
c[0].metric("verified=false steps", f"{total:,}")
c[1].metric("Error patterns", f"{len(fp):,}")
systemic = fp[fp["systemic"]] if not fp.empty else fp
c[2].metric("Systemic patterns", f"{len(systemic):,}", help=sys_rank.RULE)
c[3].metric("Tools affected", f"{fp['tool'].nunique():,}")
if fp.empty:
    st.info("No verified=false steps in this period.")
    st.stop()

if not systemic.empty:
    top = systemic.iloc[0]
    st.warning(f"**Systemic write-path signal:** {md(top['tool'])} — “{md(top['fingerprint'])}”: {md(top['why'])}. "
               "One error pattern concentrated like this points at the write path, not at the model's wording.")
st.caption(f"Patterns are {sys_rank.RULE}.")

st.subheader("By tool and error fingerprint")
view = fp.assign(
    first_seen=fp["first_seen"].dt.tz_convert(ctx.filters.tz).dt.strftime("%Y-%m-%d %H:%M"),
    last_seen=fp["last_seen"].dt.tz_convert(ctx.filters.tz).dt.strftime("%Y-%m-%d %H:%M"),
)[["tool", "fingerprint", "systemic", "why", "steps", "users", "top_version", "prev_steps", "retried_same_error",
   "score", "first_seen", "last_seen", "agent_versions", "example"]]
st.dataframe(view.style.apply(
    lambda r: ["background-color: #fde2e4" if r["systemic"] else "" for _ in r], axis=1),
    hide_index=True, column_config={
        "retried_same_error": st.column_config.NumberColumn("attempts=2, same error"),
        "prev_steps": st.column_config.NumberColumn("period before"),
        "score": st.column_config.NumberColumn(format="%.1f"),
        "why": st.column_config.TextColumn(width="large"),
        "systemic": st.column_config.CheckboxColumn("systemic"),
        "fingerprint": st.column_config.TextColumn(width="large")})

left, right = st.columns(2)
with left:
    st.subheader("Heatmap: tool × hour of day")
    st.plotly_chart(charts.vf_heatmap(d["hours"]), key="vf_heatmap")
with right:
    st.subheader("Rate per day, worst tools")
    st.plotly_chart(charts.vf_rate_daily(d["daily"]), key="vf_daily")

st.subheader("By agent version and model")
versions = d["versions"]
st.plotly_chart(charts.version_rates(versions), key="vf_versions")
st.dataframe(versions.assign(verified_false_rate=versions["verified_false_rate"].map(analysis.pct)),
             hide_index=True)
