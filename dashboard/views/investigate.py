"""Investigate: find the turn a user complains about and see what really happened."""

import json
from datetime import datetime, timezone

import pandas as pd
import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import context, sidebar, verdict

ctx = context.get()
f = ctx.filters
st.title("Investigate")
st.caption("Search by user, conversation, task or reply text; the period comes from the sidebar "
           "(a task id searches all of history). Every value is passed to the query as a bound parameter.")

EVER = {"since": datetime(1970, 1, 1, tzinfo=timezone.utc), "until": datetime(2200, 1, 1, tzinfo=timezone.utc)}

with st.form("search"):
    c = st.columns(4)
    user = c[0].text_input("User id", value=sidebar.page_param("user", ""))
    conv = c[1].text_input("Conversation id", value=sidebar.page_param("conv", ""))
    task = c[2].text_input("Task id", value=sidebar.page_param("task", ""))
    text = c[3].text_input("Reply or request text", value=sidebar.page_param("q", ""))
    everywhere = st.checkbox("Search all of history, not just the period", value=bool(sidebar.page_param("all")))
    st.form_submit_button("Search")
user, conv, task, text = (v.strip() or None for v in (user, conv, task, text))
sidebar.set_page_params(user=user, conv=conv, task=task, q=text, all="1" if everywhere else None)

if not any((user, conv, task, text)):
    st.info("Enter a user id, conversation id, task id or some words from the reply. "
            "Tip: open a turn from the “Said but not done” page.")
    st.stop()

bounds = EVER if (task or everywhere) else {}
hits = ctx.frame("search_turns", user_id=user, conversation_id=conv, task_id=task, text=text, limit=200, **bounds)
if hits.empty:
    st.warning("No turn matches. Check the id, widen the period in the sidebar, or tick “all of history”.")
    st.stop()

if len(hits) > 1:
    st.subheader(f"{len(hits):,} matching turns" + (" (first 200)" if len(hits) == 200 else ""))
    st.dataframe(hits.assign(started_at=hits["started_at"].dt.tz_convert(f.tz).dt.strftime("%Y-%m-%d %H:%M")),
                 hide_index=True)
labels = {r.task_id: f"{ctx.ts(r.started_at)} · {r.user_id} · {r.status} · {(r.goal or '')[:60]}"
          + (f" · ⚑ {r.findings}" if r.findings else "") for r in hits.itertuples(index=False)}
chosen = st.selectbox("Turn", list(labels), format_func=labels.get, key="ta_turn") if len(hits) > 1 else hits["task_id"].iloc[0]

t = ctx.frame("turn_task", task_id=chosen)
steps = ctx.frame("turn_steps", task_id=chosen)
msgs = ctx.frame("turn_messages", task_id=chosen)
audits = ctx.frame("turn_audit", task_id=chosen)
finds = ctx.frame("turn_findings", task_id=chosen)


def records(df: pd.DataFrame) -> list[dict]:
    return [{k: (None if (not isinstance(v, (list, dict)) and pd.isna(v)) else v) for k, v in r.items()}
            for r in df.to_dict("records")]


task_row = records(t)[0] if not t.empty else None
v = verdict.decide(task_row, records(steps), records(finds))

st.subheader(f"Turn {chosen}")
hdr = st.columns(4)
hdr[0].markdown(f"**User** `{task_row.get('user_id')}`  \n**Conversation** `{task_row.get('conversation_id')}`")
hdr[1].markdown(f"**Started** {ctx.ts(task_row.get('started_at'))}  \n**Finished** {ctx.ts(task_row.get('finished_at'))}")
hdr[2].markdown(f"**Status** {task_row.get('status')} ({task_row.get('success_steps')}/{task_row.get('total_steps')} steps)"
                f"  \n**Replanned** {task_row.get('replanned')}")
hdr[3].markdown(f"**Agent** {task_row.get('agent_version')} · {task_row.get('model')}  \n"
                f"**Prompt** {task_row.get('prompt_version')}")
st.markdown(f"**Asked:** {task_row.get('goal') or '—'}")

box = st.error if v.reply_was_wrong else (st.success if v.outcome == "done" else st.warning)
box(f"**Verdict: {v.label}.** {v.explanation}")
if v.reply_was_wrong or v.outcome != "done":
    st.markdown("**What a correct system should have replied** (three-layer-defence guidance: no false “done”, "
                "no internal terms, a concrete next step):")
    st.markdown(f"> {v.should_have_said_zh}\n>\n> {v.should_have_said_en}")

st.subheader("Timeline")
events = []
for m in records(msgs):
    events.append({"time": m["created_at"], "what": f"message · {m['role']}", "detail": m["content"], "status": ""})
for s in records(steps):
    args = s["args"]
    try:
        args = json.dumps(json.loads(args), ensure_ascii=False) if isinstance(args, str) else args
    except ValueError:
        pass
    outcome = f"{s['status']} · verified={s['verified']} · attempts={s['attempts']}"
    extra = " · ".join(str(x) for x in (s.get("error"), s.get("detail")) if x)
    events.append({"time": s["started_at"], "what": f"step {s['seq']} · {s['tool']} ({s['kind']})",
                   "detail": f"args {args}" + (f" — {extra}" if extra else ""), "status": outcome})
for a in records(audits):
    events.append({"time": a["created_at"], "what": f"audit · {a['action']}", "detail": a.get("detail") or "",
                   "status": a["result"]})
for x in records(finds):
    events.append({"time": x["event_time"], "what": f"finding · {x['rule_id']} ({x['severity']})",
                   "detail": x["message"] or "", "status": "⚑"})
timeline = pd.DataFrame(events)
if not timeline.empty:
    timeline["time"] = pd.to_datetime(timeline["time"], utc=True)
    timeline = timeline.sort_values("time", kind="stable", na_position="last")
    timeline["time"] = timeline["time"].dt.tz_convert(f.tz).dt.strftime("%m-%d %H:%M:%S")
    st.dataframe(timeline, hide_index=True, column_config={"detail": st.column_config.TextColumn(width="large")})

left, right = st.columns(2)
with left:
    st.markdown("**Steps**")
    st.dataframe(steps.drop(columns=["result"]), hide_index=True)
    st.markdown("**Audit rows**")
    if audits.empty:
        st.caption("No audit row for this turn.")
    else:
        st.dataframe(audits, hide_index=True)
with right:
    st.markdown("**Findings** " + (f"(rule run {f.run_id})" if f.run_id else ""))
    if not ctx.has_run:
        context.no_rule_run_note()
    elif finds.empty:
        st.caption("No rule fired on this turn.")
    else:
        st.dataframe(finds, hide_index=True)
    st.markdown("**Reply the user saw**")
    replies = msgs[msgs["role"] == "assistant"]["content"].tolist() or [task_row.get("final_answer") or "—"]
    st.markdown("\n\n".join(f"> {r}" for r in replies))
