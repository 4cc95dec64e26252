"""Systemic signals ranked by what makes a fault systemic (dashboard/systemic.py): on the sample
month's week 47 the read-back mismatch on remind_at (84 steps, 48 users, only version 2.4.0,
never retried) is the systemic signal, above "DB write timeout" (8 steps that retried), which
the patterns page used to name because retries were the gate."""

from __future__ import annotations

import pandas as pd

from test_dashboard_pages import W47, app, sample_db, shown  # noqa: F401 - the session fixture
from trace_audit.dashboard import systemic


def test_week_47_names_the_remind_at_mismatch(monkeypatch, sample_db):  # noqa: F811
    at = app(monkeypatch, sample_db, "patterns", **W47)
    warning = " ".join(shown(w.value) for w in at.warning)
    assert "read-back mismatch: remind_at" in warning and "48 users" in warning, warning
    assert "only on version 2.4.0" in warning
    table = [d.value for d in at.dataframe if "score" in getattr(d.value, "columns", [])][0]
    table = table.data if hasattr(table, "data") else table  # a Styler on the page
    order = table["fingerprint"].tolist()
    mismatch = next(i for i, f in enumerate(order) if f.startswith("read-back mismatch: remind_at"))
    timeout = next(i for i, f in enumerate(order) if f.startswith("DB write timeout"))
    assert mismatch == 0 and timeout > mismatch
    assert bool(table.loc[table["fingerprint"].str.startswith("read-back mismatch"), "systemic"].iloc[0])


def _row(tool, fp, steps, users, top, retried, **kw):
    return {"tool": tool, "fingerprint": fp, "steps": steps, "users": users, "top_version": "v",
            "top_version_steps": top, "retried_same_error": retried, **kw}


def test_retries_are_one_signal_not_the_gate():
    fp = pd.DataFrame([_row("a", "few retried", 8, 8, 8, 8), _row("b", "broad, new, one version", 60, 40, 60, 0),
                       _row("c", "spread thin, old", 30, 2, 10, 0)])
    prev = pd.DataFrame([{"tool": "c", "fingerprint": "spread thin, old", "prev_steps": 30}])
    r = systemic.rank_systemic(fp, prev)
    assert r["fingerprint"].tolist()[0] == "broad, new, one version"
    assert r.set_index("fingerprint")["systemic"].to_dict() == {
        "broad, new, one version": True, "few retried": False, "spread thin, old": False}
