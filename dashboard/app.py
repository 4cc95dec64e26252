"""trace-audit dashboard: the entry script (`streamlit run`, or `trace-audit dashboard`).

This file is the frame around every page: it opens the warehouse read-only for
this run, draws the sidebar filters, picks the page and always closes the
connection so writers are not locked out. Pages live in `views/`, one file each;
they only render what `queries/` returns.
"""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard"

from . import auth, context, data
from ..queries.warehouse import db

# The page icon is a bundled file: a :material/...: icon here makes every browser fetch the
# favicon from a public font host, which an offline deployment cannot reach.
ICON = str(Path(__file__).resolve().parent / "static" / "icon.png")
st.set_page_config(page_title="trace-audit", page_icon=ICON, layout="wide")
auth.gate()  # stops this run here until the session has signed in (when access is guarded)

PAGES = [
    st.Page("views/overview.py", title="Overview", icon=":material/dashboard:", url_path="overview", default=True),
    st.Page("views/incidents.py", title="Said but not done", icon=":material/record_voice_over:", url_path="incidents"),
    st.Page("views/patterns.py", title="verified=false patterns", icon=":material/extension:", url_path="patterns"),
    st.Page("views/stuck.py", title="Stuck tasks", icon=":material/hourglass_top:", url_path="stuck"),
    st.Page("views/trends.py", title="Tool trends", icon=":material/trending_up:", url_path="trends"),
    st.Page("views/investigate.py", title="Investigate", icon=":material/search:", url_path="investigate"),
    st.Page("views/users.py", title="Users", icon=":material/person:", url_path="users"),
    st.Page("views/conversations.py", title="Conversations", icon=":material/forum:", url_path="conversations"),
    st.Page("views/weekly.py", title="Weekly review", icon=":material/calendar_month:", url_path="weekly"),
    st.Page("views/rules.py", title="Rules", icon=":material/rule:", url_path="rules"),
]

page = st.navigation(PAGES)
st.sidebar.markdown("### trace-audit")
path = data.db_path()
wh = None
try:
    wh = data.open_warehouse(path)
    ready = context.setup(wh)
    if ready:
        page.run()
except (db.DatabaseMissing, db.DatabaseBusy, db.DatabaseError) as exc:
    context.database_problem(path, exc)
except Exception as exc:  # noqa: BLE001 - a user never sees a traceback; the server log keeps it
    logging.getLogger("trace_audit.dashboard").exception("page %s failed", page.title)
    context.page_failed(page.title, exc)
finally:
    if wh is not None:
        wh.close()
