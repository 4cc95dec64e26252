"""Investigate: find the turn a user complains about and see what really happened."""

import re

import pandas as pd
import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import context, safe, sidebar, turns, verdict
from ..safe import md

ctx = context.get()
f = ctx.filters
st.title("Investigate")
st.caption(f"Search by user, conversation, task, reply text or time of day; the period comes from the sidebar "
           f"(a task id searches all of history; turns without a time always match). Times in {f.tz}.")

with st.form("search"):
    c = st.columns(3)  # two rows of inputs, so each stays readable at 800 px
    user = c[0].text_input("User id", value=sidebar.page_param("user", ""))
    conv = c[1].text_input("Conversation id", value=sidebar.page_param("conv", ""))
    task = c[2].text_input("Task id", value=sidebar.page_param("task", ""))
    c = st.columns([2, 1])
    text = c[0].text_input("Reply or request text", value=sidebar.page_param("q", ""))
    tod = c[1].text_input("Time of day", value=sidebar.page_param("at", ""), placeholder="08:30",
                          help="Turns that started within 30 minutes of this local time (HH:MM).")
    everywhere = st.checkbox("Search all of history, not just the period", value=bool(sidebar.page_param("all")))
    searched = st.form_submit_button("Search")
user, conv, task, text, tod = (v.strip() or None for v in (user, conv, task, text, tod))
tod_minute = None
if tod:
    m = re.fullmatch(r"([01]?\d|2[0-3])[:.]?([0-5]\d)?", tod)
    if m:
        tod_minute = int(m.group(1)) * 60 + int(m.group(2) or 0)
    else:
        st.warning(f"“{md(tod)}” is not a time of day; write it as HH:MM, e.g. 08:30. It was left out of the search.")
        tod = None
turn = sidebar.page_param("turn")
reply = sidebar.page_param("reply")
if searched:  # a new search picks its own turn
    turn = reply = None
sidebar.set_page_params(user=user, conv=conv, task=task, q=text, at=tod, all="1" if everywhere else None)

focus = None  # the reply being investigated, when the link names one
if reply:
    found = ctx.frame("reply_lookup", message_id=reply)
    if found.empty:
        st.warning(f"No reply {md(reply)} in this database or in the chosen rule run.")
        reply = None
    else:
        focus = turns.records(found)[0]
        turn = turn or focus.get("task_id")

if any((user, conv, task, text, tod_minute is not None)):
    bounds = turns.EVER if (task or everywhere) else {}
    hits = ctx.frame("search_turns", user_id=user, conversation_id=conv, task_id=task, text=text,
                     tod_minute=tod_minute, limit=200, **bounds)
    if hits.empty and not (turn or focus):
        st.warning("No turn matches. Check the id, widen the period in the sidebar, or tick “all of history”.")
        st.stop()
    if len(hits) > 1:
        st.subheader(f"{len(hits):,} matching turns" + (" (first 200)" if len(hits) == 200 else ""))
        st.dataframe(turns.hit_table(hits, f.tz), hide_index=True)
    keys = {turns.hit_key(r): turns.hit_label(r, ctx.ts) for r in hits.itertuples(index=False)}
    current = ("turn:" + turn) if turn else (("reply:" + reply) if reply else None)
    if keys and current not in keys:
        current = next(iter(keys)) if not (turn or focus) else None
    if len(keys) > 1:
        options = list(keys) if current in keys else [None] + list(keys)
        current = st.selectbox("Turn", options, index=options.index(current), key="ta_turn",
                               format_func=lambda k: keys.get(k, "(the turn from the link)"))
    if current and current.startswith("turn:") and current[5:] != turn:
        turn, reply, focus = current[5:], None, None
    elif current and current.startswith("reply:") and current[6:] != reply:
        reply = current[6:]
        focus = turns.records(ctx.frame("reply_lookup", message_id=reply))[0]
        turn = focus.get("task_id")
elif not (turn or focus):
    st.info("Enter a user id, conversation id, task id, some words from the reply or a time of day. "
            "Tip: open an incident from the “Said but not done” page.")
    st.stop()
sidebar.set_page_params(turn=turn, reply=reply)

# Previous / next within the incident list the investigator came from (same filters, same kind).
kind_filter = sidebar.page_param("kind")
incidents = ctx.plan("incidents", kind=kind_filter)["list"] if ctx.has_run else pd.DataFrame()
here = turns.position_in(incidents, turn, reply)
if here is not None:
    nav = st.columns([1, 3, 1])
    nav[1].caption(f"Incident {here + 1:,} of {len(incidents):,} in the list"
                   + (f" ({md(kind_filter.replace('_', ' '))})" if kind_filter else ""))
    for col, step, label in ((nav[0], -1, "← previous"), (nav[2], 1, "next →")):
        j = here + step
        if 0 <= j < len(incidents):
            col.page_link("views/investigate.py", label=label,
                          query_params=ctx.link_params(**turns.incident_link(incidents.iloc[j]), kind=kind_filter))

task_row = None
if turn:
    t = ctx.frame("turn_task", task_id=turn)
    task_row = turns.records(t)[0] if not t.empty else None
    if task_row is None:
        st.warning(f"No turn {md(turn)} in this database.")
        if not focus:
            st.stop()

if task_row is None:  # a reply that no turn answers
    v = verdict.decide(None, [], [], None, (focus or {}).get("reply_kind") or "not_executed", focus.get("content"))
    st.subheader("A reply with no turn")
    st.markdown(f"**User** {md(focus.get('user_id'))} · **Conversation** {md(focus.get('conversation_id'))} · "
                f"**Reply** {md(focus.get('message_id'))} · **Sent** {md(ctx.ts(focus.get('created_at')))}")
    turns.verdict_box(v)
    st.markdown("**Reply the user saw**")
    st.markdown("> " + safe.md_block(focus.get("content")).replace("  \n", "  \n> "))
    near = ctx.frame("turn_nearby", task_id=None, message_id=focus.get("message_id"),
                     conversation_id=focus.get("conversation_id"), user_id=focus.get("user_id"),
                     around_start=focus.get("created_at"), around_end=focus.get("created_at"))
    if focus.get("reply_kind"):
        seq = focus.get("finding_seq")
        turns.review_section(ctx.wh.path, None, focus.get("message_id"), seq,
                             turns.current_mark(ctx.frame("incident_mark", task_key="reply:" + focus["message_id"],
                                                          seq=seq)))
    turns.nearby_section(near, f.tz)
    st.stop()

steps = ctx.frame("turn_steps", task_id=turn)
msgs = ctx.frame("turn_messages", task_id=turn)
audits = ctx.frame("turn_audit", task_id=turn)
finds = ctx.frame("turn_findings", task_id=turn)
claims = ctx.frame("turn_claims", task_id=turn)
turn_out, step_out = ctx.wh.call("outcomes", turns.outcomes_of, (turn,))
steps = turns.with_outcomes(steps, step_out)
reply_kind = turns.reply_kind(claims, reply)
turn_outcome = turn_out["outcome"].iloc[0] if not turn_out.empty else None
v = verdict.decide(task_row, turns.records(steps), turns.records(finds), turn_outcome, reply_kind,
                   " ".join(str(x) for x in ((focus or {}).get("content"), task_row.get("goal")) if x))

st.subheader(f"Turn {md(turn)}")
hdr = st.columns(2) + st.columns(2)
hdr[0].markdown(f"**User** {md(task_row.get('user_id'))}  \n**Conversation** {md(task_row.get('conversation_id'))}")
hdr[1].markdown(f"**Started** {md(ctx.ts(task_row.get('started_at')))}  \n"
                f"**Finished** {md(ctx.ts(task_row.get('finished_at')))}")
hdr[2].markdown(f"**Status** {md(task_row.get('status'))} ({md(task_row.get('success_steps'))}/"
                f"{md(task_row.get('total_steps'))} steps)  \n**Replanned** {md(task_row.get('replanned'))}")
hdr[3].markdown(f"**Agent** {md(task_row.get('agent_version'))} · {md(task_row.get('model'))}  \n"
                f"**Prompt** {md(task_row.get('prompt_version'))}")
if task_row.get("started_at") is None and task_row.get("source_file"):
    st.caption(f"This turn has no time; it is line {md(task_row.get('source_line'))} of "
               f"{md(task_row.get('source_file'))}.")
st.markdown(f"**Asked:** {md(task_row.get('goal'))}")
links = st.columns(2)
if task_row.get("user_id"):
    links[0].page_link("views/users.py", label=f"All turns of user {md(task_row['user_id'])} →",
                       query_params=ctx.link_params(user=task_row["user_id"]))
if task_row.get("conversation_id"):
    links[1].page_link("views/conversations.py", label="The whole conversation →",
                       query_params=ctx.link_params(conv=task_row["conversation_id"]))
turns.verdict_box(v)

if reply_kind is not None:
    seq = turns.claim_seq(claims, reply)
    turns.review_section(ctx.wh.path, turn, reply, seq,
                         turns.current_mark(ctx.frame("incident_mark", task_key=turn, seq=seq)))

st.markdown("**Reply the user saw**")
replies = msgs[msgs["role"] == "assistant"]
shown = [(r.message_id, r.content) for r in replies.itertuples(index=False)] or [(None, task_row.get("final_answer"))]
for mid, content in shown:
    mark = " ◀ the reply in question" if reply and mid == reply else ""
    st.markdown("> " + safe.md_block(content).replace("  \n", "  \n> ") + (f"\n\n{mark}" if mark else ""))

turns.claims_section(ctx.wh.call("claims", turns.claims_of, turn))

st.markdown("**This turn's conversation** (in order)")
if msgs.empty:
    st.caption("No message is tied to this turn.")
else:
    st.dataframe(turns.message_table(msgs, f.tz), hide_index=True,
                 column_config={"content": st.column_config.TextColumn(width="large")})

st.markdown("**Steps** (outcome as the rules judge it)")
if steps.empty:
    st.caption("This turn has no step.")
else:
    show = steps.drop(columns=["result"]).copy()
    show["args"] = show["args"].map(turns.compact_json)
    st.dataframe(turns.times_as_text(show, f.tz), hide_index=True)

left, right = st.columns(2)
with left:
    st.markdown("**Audit rows of this turn**")
    if audits.empty:
        st.caption("No audit row is tied to this turn.")
    else:
        st.dataframe(turns.times_as_text(audits, f.tz), hide_index=True)
with right:
    st.markdown("**Findings** " + (f"(rule run {md(f.run_id)})" if f.run_id else ""))
    if not ctx.has_run:
        context.no_rule_run_note()
    elif finds.empty:
        st.caption("No rule fired on this turn.")
    else:
        st.dataframe(turns.times_as_text(finds, f.tz), hide_index=True)

near = ctx.frame("turn_nearby", task_id=turn, message_id=reply, conversation_id=task_row.get("conversation_id"),
                 user_id=task_row.get("user_id"), around_start=task_row.get("started_at"),
                 around_end=task_row.get("finished_at") or task_row.get("started_at"))
turns.nearby_section(near[~near["id"].isin(msgs["message_id"])], f.tz)
