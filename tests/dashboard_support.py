"""Builds the database the dashboard and report tests read: the sample month.

Preferred path: `build_demo_db` (committed sample data, ingested and the real rule
engine run). While the sample data is not committed yet, the generator is run into
a temp dir and ingested the same way; while the rule engine is not installed, the
generator's own labels stand in for its said_but_not_done findings (one rule run,
written with plain SQL), so the pages have findings to count.
"""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_data"
TZ = "Asia/Shanghai"


def engine_available() -> bool:
    return importlib.util.find_spec("trace_audit.queries.engine") is not None


def build_sample_db(db_path: str, workdir: Path) -> str:
    """Build the sample-month warehouse at `db_path`; returns how it was built."""
    if (SAMPLE / "seed004").is_dir():
        from trace_audit.cli.cmd_demo import build_demo_db

        build_demo_db(db_path)
        if engine_available():
            return "demo"
        labels = SAMPLE / "labels" / "turn_labels.csv"
    else:
        out = workdir / "sample"
        subprocess.run([sys.executable, str(SAMPLE / "generate.py"), "--out", str(out)], check=True,
                       capture_output=True)
        from trace_audit.ingest.load.loader import ingest

        ingest([str(out / "seed004"), str(out / "seed001")], db_path, tz=TZ, progress=False)
        labels = out / "labels" / "turn_labels.csv"
        if engine_available():
            from trace_audit.queries.warehouse import db
            from trace_audit.queries.engine import run_rules

            con = db.connect(db_path)
            try:
                run_rules(con, now=None)
            finally:
                con.close()
            return "generated+engine"
    _stand_in_findings(db_path, labels)
    return "labels"


def _stand_in_findings(db_path: str, labels: Path) -> None:
    from trace_audit.queries.warehouse import db

    rows = []
    with open(labels, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if r["sbnd"] and r["sbnd"] != "none":
                rows.append((r["task_id"] or None, r["conversation_id"] or None, r["user_id"] or None,
                             f"reply claims success but the work was {r['sbnd']}", r["sbnd"], r["reply_time"],
                             r["reply_message_id"] or None))
    con = db.connect(db_path)
    try:
        con.execute("INSERT INTO rule_runs (run_id, started_at, finished_at, now_ts, engine, rules, finding_count, "
                    "failed_rules) VALUES ('labels-1', TIMESTAMPTZ '2026-11-29 16:00:00+00', "
                    "TIMESTAMPTZ '2026-11-29 16:00:01+00', TIMESTAMPTZ '2026-11-29 16:00:00+00', 'labels', "
                    "'[{\"id\": \"said_but_not_done\"}]', ?, '[]')", [len(rows)])
        con.executemany(
            "INSERT INTO findings (run_id, rule_id, severity, task_id, conversation_id, user_id, message, evidence, "
            "event_time) VALUES ('labels-1', 'said_but_not_done', 'block', ?, ?, ?, ?, "
            "json_object('kind', ?::VARCHAR, 'message_id', ?::VARCHAR), CAST(? AS TIMESTAMPTZ))",
            [(t, c, u, m, k, mid, ts) for t, c, u, m, k, ts, mid in rows])
        db.mark_changed(con)
    finally:
        con.close()


def shown(markdown: str) -> str:
    """What a reader sees of Markdown whose stored text was escaped (dashboard/safe.py)."""
    import re

    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class served_dashboard:
    """`with served_dashboard(db, work, access, env_extra) as url:` a real dashboard server (`streamlit run`
    as `trace-audit dashboard` starts it) on a free loopback port, stopped on exit; its log in work."""

    def __init__(self, db_path: str, work: Path, access=None, env_extra: dict | None = None):
        self.db_path, self.work, self.access, self.env_extra = db_path, work, access, env_extra or {}

    def __enter__(self) -> str:
        import time
        import urllib.request

        from trace_audit.dashboard import serve

        port = free_port()
        env = serve.environment(self.db_path, TZ, self.access)
        env.update(self.env_extra)
        self.log_path = self.work / "streamlit.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(serve.command(port), env=env, cwd=str(self.work), stdout=self.log,
                                     stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return url
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"dashboard did not start: {self.log_path.read_text()[-2000:]}")
            time.sleep(0.3)

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
