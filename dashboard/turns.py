"""What the investigation, users and conversations views share: turning query results into
the records the verdict words, tables whose times read in the screen's zone, the links
between incidents, and the "nearby, from other turns" section."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from . import safe
from .verdict import Verdict
from ..queries import marks, outcomes
from ..queries.claims_report import ClaimsReport, action_text, claims_report, stored_text

EVER = {"since": datetime(1970, 1, 1, tzinfo=timezone.utc), "until": datetime(2200, 1, 1, tzinfo=timezone.utc)}


def records(df: pd.DataFrame) -> list[dict]:
    return [{k: (None if (not isinstance(v, (list, dict)) and pd.isna(v)) else v) for k, v in r.items()}
            for r in df.to_dict("records")]


def outcomes_of(con, task_ids: tuple[str, ...]):
    """The turn model's outcomes for these turns (cached per data change by the caller)."""
    return outcomes.outcomes(con, list(task_ids))


def with_outcomes(steps: pd.DataFrame, step_out: pd.DataFrame) -> pd.DataFrame:
    """The turn's steps with the rules' outcome of each write step (empty for other steps)."""
    if steps.empty:
        return steps.assign(outcome=pd.Series(dtype=object))
    out = step_out[["seq", "outcome"]] if not step_out.empty else pd.DataFrame(columns=["seq", "outcome"])
    merged = steps.merge(out.astype({"seq": steps["seq"].dtype}), on="seq", how="left")
    cols = ["seq", "tool", "outcome"] + [c for c in merged.columns if c not in ("seq", "tool", "outcome")]
    return merged[cols]


def reply_kind(claims: pd.DataFrame, reply: str | None) -> str | None:
    """The rules' said_but_not_done kind for the reply in question (else the turn's first)."""
    if claims.empty:
        return None
    if reply is not None:
        mine = claims[claims["message_id"] == reply]
        if not mine.empty:
            return mine["kind"].iloc[0]
    return claims["kind"].iloc[0]


def claim_seq(claims: pd.DataFrame, reply: str | None):
    """The seq of the said_but_not_done finding on the reply in question (usually none)."""
    if claims.empty:
        return None
    mine = claims[claims["message_id"] == reply] if reply is not None else claims
    v = (mine if not mine.empty else claims)["seq"].iloc[0]
    return None if pd.isna(v) else int(v)


def current_mark(frame: pd.DataFrame) -> dict | None:
    return records(frame)[0] if not frame.empty else None


def compact_json(value):
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.dumps(json.loads(value), ensure_ascii=False)
        except ValueError:
            return value
    return value


def _local(series: pd.Series, tz: str) -> pd.Series:
    def one(ts):
        if ts is None or (not isinstance(ts, str) and pd.isna(ts)):
            return ""
        try:
            t = pd.Timestamp(ts)
            t = t.tz_localize("UTC") if t.tzinfo is None else t
            return t.tz_convert(tz).strftime("%Y-%m-%d %H:%M:%S")
        except (ValueError, TypeError, OverflowError):
            return str(ts)
    return series.map(one)


def times_as_text(df: pd.DataFrame, tz: str) -> pd.DataFrame:
    """Every time column as local text in `tz` (the zone the screen names); '' when undated."""
    out = df.copy()
    for c in out.columns:
        if c in ("started_at", "ended_at", "created_at", "finished_at", "event_time", "time") or \
                pd.api.types.is_datetime64_any_dtype(out[c]):
            out[c] = _local(out[c], tz)
    return out


def hit_key(r) -> str:
    return ("turn:" + r.task_id) if isinstance(r.task_id, str) and r.task_id else ("reply:" + str(r.reply_id))


def hit_label(r, ts) -> str:
    when = ts(r.started_at) if r.started_at is not None and not pd.isna(r.started_at) else "no time"
    what = (r.goal or r.final_answer or "") if isinstance(r.goal or r.final_answer, str) else ""
    flag = f" · ⚑ {r.findings}" if r.findings else ""
    who = r.task_id if isinstance(r.task_id, str) else f"reply {r.reply_id} (no turn)"
    return safe.plain(f"{when} · {r.user_id} · {who} · {r.status} · {what[:50]}{flag}")


def hit_table(hits: pd.DataFrame, tz: str) -> pd.DataFrame:
    cols = ["started_at", "user_id", "conversation_id", "task_id", "reply_id", "status", "goal", "findings"]
    return times_as_text(hits[cols], tz)


def message_table(msgs: pd.DataFrame, tz: str) -> pd.DataFrame:
    return times_as_text(msgs[["position", "created_at", "role", "content", "message_id"]], tz)


def incident_link(row) -> dict:
    """The Investigate URL values that open one incident: its turn and its reply."""
    task = row["task_id"] if isinstance(row["task_id"], str) else None
    reply = row["message_id"] if isinstance(row["message_id"], str) else None
    return {"turn": task, "reply": reply}


def position_in(incidents: pd.DataFrame, turn: str | None, reply: str | None) -> int | None:
    if incidents.empty or not (turn or reply):
        return None
    same = incidents["message_id"] == reply if reply else incidents["task_id"] == turn
    hit = incidents.index[same.fillna(False).to_numpy()]
    return int(incidents.index.get_loc(hit[0])) if len(hit) else None


def verdict_box(v: Verdict) -> None:
    box = st.error if v.reply_was_wrong else (st.success if v.outcome == "done" else st.warning)
    box(f"**Verdict: {v.label}.** {safe.md(v.explanation)}")
    if v.reply_was_wrong or v.outcome != "done":
        st.markdown("**What a correct system should have replied** (no false “done”, no internal terms, "
                    "a concrete next step):")
        st.markdown(f"> {safe.md(v.should_have_said_zh)}\n>\n> {safe.md(v.should_have_said_en)}")


def review_section(db_path: str, task_id: str | None, message_id: str | None, seq, current: dict | None) -> None:
    """The investigator's mark on this incident (queries/marks.py), kept beside the warehouse."""
    key = marks.task_key(task_id, message_id)
    if key is None:
        return
    st.markdown("**Review**" + (f" · marked {marks.WORDS[current['mark']]}"
                                + (f": {safe.md(current['mark_note'])}" if current.get("mark_note") else "")
                                if current and current.get("mark") else " · not marked yet"))
    with st.form(f"review-{key}"):
        c = st.columns([1, 2])
        choice = c[0].radio("This incident is", marks.MARKS, format_func=marks.WORDS.get, horizontal=False,
                            index=marks.MARKS.index(current["mark"]) if current and current.get("mark") else 0)
        note = c[1].text_area("Note", value=(current or {}).get("mark_note") or "", max_chars=4000,
                              placeholder="what you found, what was done")
        if st.form_submit_button("Save mark"):
            seq_value = None if seq is None or (isinstance(seq, float) and pd.isna(seq)) else int(seq)
            try:
                marks.add(db_path, marks.Mark(rule_id="said_but_not_done", task_key=key, seq=seq_value,
                                              mark=choice, note=note.strip()))
            except OSError as exc:
                st.error(safe.md(f"Could not save the mark beside the warehouse ({marks.marks_path(db_path)}): "
                                 f"{exc.strerror}. Ask whoever runs the dashboard to make that folder writable."))
                return
            st.rerun()


def turn_list_section(ctx, rows: pd.DataFrame, what: str) -> None:
    """A user's or a conversation's turns over time, each with its verdict and a link that opens it."""
    if rows.empty:
        st.info(f"No turn for this {what}.")
        return
    ids = tuple(t for t in rows["task_id"].dropna().tolist())
    turn_out, _ = ctx.wh.call("outcomes", outcomes_of, ids) if ids else (pd.DataFrame(columns=["task_id", "outcome"]),
                                                                          None)
    by_task = dict(zip(turn_out["task_id"], turn_out["outcome"]))
    out = rows.copy()
    out["verdict"] = [verdict_words(by_task.get(t) if isinstance(t, str) else None,
                                    k if isinstance(k, str) else None)
                      for t, k in zip(out["task_id"], out["claim_kind"])]
    base = ctx.link_params()
    out["open"] = [_investigate_url(base, t, r) for t, r in zip(out["task_id"], out["claim_reply"])]
    cols = ["started_at", "verdict", "task_id", "conversation_id", "user_id", "goal", "status", "agent_version",
            "findings", "open"]
    st.dataframe(times_as_text(out[cols], ctx.filters.tz), hide_index=True, column_config={
        "started_at": st.column_config.TextColumn("started (empty: no time; in source order)"),
        "goal": st.column_config.TextColumn("asked", width="large"),
        "verdict": st.column_config.TextColumn(width="medium"),
        "open": st.column_config.LinkColumn("open", display_text="investigate")})


def who_is_affected(ctx, query: str, page: str, key: str, column: str, what: str, link_text: str) -> None:
    """Without an id: the period's users (or conversations), most incidents first, each linking
    to its own view."""
    from urllib.parse import urlencode

    f = ctx.filters
    top = ctx.frame(query)
    st.subheader(f"{what} with turns in {f.since} – {f.until}, most incidents first")
    if top.empty:
        st.info(f"No {what.lower()[:-1]} has a turn in this period.")
        return
    base = ctx.link_params()
    top = top.assign(open=[f"/{page}?" + urlencode({**base, key: v}) for v in top[column]])
    st.dataframe(times_as_text(top, f.tz), hide_index=True, column_config={
        "undated": st.column_config.NumberColumn("turns with no time"),
        "open": st.column_config.LinkColumn("open", display_text=link_text)})


def verdict_words(turn_outcome, reply_kind) -> str:
    from .verdict import headline

    return headline(turn_outcome, reply_kind)


def _investigate_url(base: dict, task_id, reply_id) -> str:
    from urllib.parse import urlencode

    q = dict(base)
    if isinstance(task_id, str):
        q["turn"] = task_id
    if isinstance(reply_id, str):
        q["reply"] = reply_id
    return "/investigate?" + urlencode(q)


def nearby_section(near: pd.DataFrame, tz: str) -> None:
    st.markdown("**Nearby, from other turns** (not this turn's evidence; each row names its turn)")
    if near.empty:
        st.caption("Nothing else in this conversation or for this user around that time.")
        return
    st.dataframe(times_as_text(near[["created_at", "turn", "what", "kind", "text", "id"]], tz), hide_index=True,
                 column_config={"text": st.column_config.TextColumn(width="large")})


def claims_of(con, task_id: str) -> ClaimsReport:
    """The claims of one turn against its writes (cached per data change by the caller)."""
    return claims_report(con, task_id)


def claims_section(rep: ClaimsReport) -> None:
    """Each action the turn's replies claim and the write behind it ("none" when nothing), then
    each value told or asked: what was said, what was written, what was read back or stored
    (queries/claims_report.py, the same rows `trace-audit explain` prints). Static tables, whose
    cells wrap at 800 px; st.table reads its cells as Markdown, so every cell goes through md()."""
    st.markdown("**What the replies claim, and the write behind each claim**")
    if rep.error:
        st.caption(safe.md(f"The claims could not be read: {rep.error}"))
        return
    if not rep.actions:
        st.caption("No reply of this turn claims an action.")
    else:
        _table({"claimed action": [action_text(a) for a in rep.actions],
                "backed by": [a["backed_by"] + (" (restated, judged on the whole turn)" if a["restated"] else "")
                              for a in rep.actions],
                "clause": [a["clause"] for a in rep.actions],
                "reply": [a["reply_id"] for a in rep.actions]})
    st.markdown("**Values told to the user, against what was written and read back or stored**")
    if not rep.told:
        st.caption("No value told in a claim was compared with a write.")
    else:
        _table(_values(rep.told, "told"))
    if rep.asked:
        st.markdown("**Values the user asked for, against what was written**")
        _table({k: v for k, v in _values(rep.asked, "asked").items() if k != "read back / stored (from)"})


def _values(rows: list[dict], said: str) -> dict[str, list]:
    return {"field": [v["field"] for v in rows], said: [v["told"] for v in rows],
            "written": [v["written"] for v in rows],
            "read back / stored (from)": [stored_text(v) for v in rows],
            "verdict": [v["verdict"] for v in rows],
            "step": [f"#{v['seq']}" for v in rows]}  # the write: its tool is in the claims and the steps tables


def _table(columns: dict[str, list]) -> None:
    frame = pd.DataFrame({name: [safe.md(v) for v in values] for name, values in columns.items()})
    st.table(frame.style.hide(axis="index"))
