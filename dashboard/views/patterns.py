"""verified=false patterns: which write path fails its read-back, how, since when, for whom."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import analysis, charts, context
from ..safe import md

SYSTEMIC_MIN = 3  # retried-and-still-failed steps in one group before it is called systemic

ctx = context.get()
st.title("verified=false patterns")
st.caption("Steps whose read-back did not confirm the write, grouped by tool and error fingerprint "
           "(numbers, ids, times and quoted text removed, so one fault is one group). "
           f"Times in {ctx.filters.tz}.")

d = ctx.plan("patterns")
fp = d["fingerprints"]
total = int(d["hours"]["verified_false"].sum())
c = st.columns(4)
c[0].metric("verified=false steps", f"{total:,}")
c[1].metric("Error patterns", f"{len(fp):,}")
systemic = fp[fp["retried_same_error"] >= SYSTEMIC_MIN]
c[2].metric("Systemic patterns", f"{len(systemic):,}",
            help=f"groups with at least {SYSTEMIC_MIN} steps that used both attempts and ended on the same error")
c[3].metric("Tools affected", f"{fp['tool'].nunique():,}")
if fp.empty:
    st.info("No verified=false steps in this period.")
    st.stop()

if not systemic.empty:
    top = systemic.iloc[0]
    st.warning(f"**Systemic write-path signal:** {md(top['tool'])} — “{md(top['fingerprint'])}”: "
               f"{int(top['retried_same_error'])} steps failed twice with the same error "
               f"({int(top['steps'])} in all, {int(top['users'])} users, versions {md(top['agent_versions'])}). "
               "Retries that fail the same way point at the write path, not at the model's wording.")

st.subheader("By tool and error fingerprint")
view = fp.assign(
    first_seen=fp["first_seen"].dt.tz_convert(ctx.filters.tz).dt.strftime("%Y-%m-%d %H:%M"),
    last_seen=fp["last_seen"].dt.tz_convert(ctx.filters.tz).dt.strftime("%Y-%m-%d %H:%M"),
    systemic=fp["retried_same_error"] >= SYSTEMIC_MIN,
)[["tool", "fingerprint", "steps", "users", "retried_same_error", "systemic", "first_seen", "last_seen",
   "agent_versions", "example"]]
st.dataframe(view.style.apply(
    lambda r: ["background-color: #fde2e4" if r["systemic"] else "" for _ in r], axis=1),
    hide_index=True, column_config={
        "retried_same_error": st.column_config.NumberColumn("attempts=2, same error"),
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
