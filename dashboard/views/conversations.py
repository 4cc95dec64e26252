"""Conversations: one conversation's messages in order and its turns with their verdicts."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import context, sidebar, turns
from ..safe import md

ctx = context.get()
f = ctx.filters
st.title("Conversations")
st.caption(f"A conversation's turns with their verdicts, and every message in order, labelled with its turn. "
           f"Times in {f.tz}.")
conv = st.text_input("Conversation id", value=sidebar.page_param("conv", ""), key="ta_conv_id").strip() or None
sidebar.set_page_params(conv=conv)

if conv is None:
    turns.who_is_affected(ctx, "conversations_summary", "conversations", "conv", "conversation_id", "Conversations",
                          "the conversation")
    st.stop()

rows = ctx.frame("turn_list", user_id=None, conversation_id=conv, limit=500)
st.subheader(f"Conversation {md(conv)}: {int(rows['task_id'].notna().sum()):,} turn(s)")
turns.turn_list_section(ctx, rows, "conversation")
st.subheader("Messages, in order")
msgs = ctx.frame("conversation_messages", conversation_id=conv, limit=2000)
if msgs.empty:
    st.caption("No message stored for this conversation.")
else:
    st.dataframe(turns.times_as_text(msgs, f.tz), hide_index=True,
                 column_config={"content": st.column_config.TextColumn(width="large")})
