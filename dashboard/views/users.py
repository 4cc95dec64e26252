"""Users: one user's turns over time with each turn's verdict; without a user, who is affected most."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import context, sidebar, turns
from ..safe import md

ctx = context.get()
f = ctx.filters
st.title("Users")
st.caption(f"One user's turns over time, each with its verdict (what the rules found the turn achieved). "
           f"Times in {f.tz}.")
user = st.text_input("User id", value=sidebar.page_param("user", ""), key="ta_users_user").strip() or None
sidebar.set_page_params(user=user)

if user is None:
    turns.who_is_affected(ctx, "users_summary", "users", "user", "user_id", "Users", "their turns")
    st.stop()

rows = ctx.frame("turn_list", user_id=user, conversation_id=None, limit=500)
st.subheader(f"User {md(user)}: {len(rows):,} turn(s)" + (" (newest 500)" if len(rows) == 500 else ""))
c = st.columns(3)
c[0].metric("Turns", f"{int(rows['task_id'].notna().sum()):,}")
c[1].metric("Replies that claimed what was not done", f"{int(rows['claim_kind'].notna().sum()):,}")
c[2].metric("Conversations", f"{rows['conversation_id'].nunique():,}")
turns.turn_list_section(ctx, rows, "user")
