"""Rules: findings by rule and severity, the run history, and what changed between two runs."""

import json

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import charts, context
from ..safe import md

ctx = context.get()
st.title("Rules")
runs = ctx.runs
if runs.empty:
    context.no_rule_run_note()
    st.stop()

summary = ctx.frame("rules_summary")
c = st.columns(3)
c[0].metric("Findings in period", f"{int(summary['findings'].sum()):,}",
            help=f"run {ctx.filters.run_id}, findings whose event time falls in {ctx.filters.since} – {ctx.filters.until}")
c[1].metric("Rules with findings", f"{summary['rule_id'].nunique():,}")
c[2].metric("Rule runs", f"{len(runs):,}")
st.plotly_chart(charts.rules_bar(summary), key="rules_bar")
precision = ctx.frame("rule_precision")
shown = summary.merge(precision, on="rule_id", how="left") if not precision.empty else summary
st.dataframe(shown, hide_index=True, column_config={
    "precision": st.column_config.NumberColumn("precision (from review marks)", format="percent"),
    "false_alarm": st.column_config.NumberColumn("false alarms")})
st.caption("Precision: of the findings investigators marked, the share that were real (confirmed or handled, "
           "against false alarms). Marks are kept beside the warehouse and outlive rule runs and re-ingest."
           if not precision.empty else "No finding has a review mark yet: mark incidents in Investigate to see "
           "each rule's precision here.")

st.subheader("Run history")
failed = runs[runs["failed_rules"] > 0]
if not failed.empty:
    for r in failed.itertuples(index=False):
        errs = json.loads(r.failed_rules_json or "[]")
        st.error(md(f"Run {r.run_id}: {len(errs)} rule(s) failed — " +
                    "; ".join(f"{e.get('id')}: {e.get('error')}" for e in errs)))
st.plotly_chart(charts.runs_history(runs), key="rules_history")
st.dataframe(runs.drop(columns=["failed_rules_json"]), hide_index=True)

st.subheader("Diff between two runs")
ids = runs["run_id"].tolist()
if len(ids) < 2:
    st.info("Only one rule run so far; run `trace-audit rules run` again (e.g. after changing a threshold) to compare.")
else:
    c1, c2 = st.columns(2)
    run_a = c1.selectbox("Earlier run (A)", ids, index=1, key="ta_run_a")
    run_b = c2.selectbox("Later run (B)", ids, index=0, key="ta_run_b")
    diff = ctx.wh.frame("rules_diff", {"run_a": run_a, "run_b": run_b})
    st.dataframe(diff, hide_index=True, column_config={
        "in_a": "findings in A", "in_b": "findings in B", "new": "new in B", "resolved": "resolved since A"})
    st.caption("The same numbers as `trace-audit rules diff A B` (one query, queries/dashboard/rules_diff.sql).")
