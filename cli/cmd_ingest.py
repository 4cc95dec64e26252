"""`trace-audit ingest PATH... [--tz ZONE] [--strict]`"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .errors import UserError
from .options import DEFAULT_WAIT, add_db_option, seconds, zone
from .terminal import safe

HELP = """Load agent traces and audit logs into the warehouse.

PATH is a file (.jsonl, .json object or array, .gz), a directory (walked
recursively), or - for standard input. Formats are recognised per record:
canonical records, seed-004 table dumps (agent_task, agent_step, audit_logs,
messages), seed-001 AgentTrace, OpenAI-style chat runs (tau-bench).

A record that cannot be loaded is quarantined in the ingest_errors table with
its file, line and reason; the good records around it still load. A file
already loaded (same sha256) is skipped; a record re-sent with the same key
replaces the stored one. Each file is one transaction."""


def register(sub) -> None:
    p = sub.add_parser("ingest", help="load trace files into the warehouse", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH")
    add_db_option(p)
    p.add_argument("--tz", default=None, type=zone, help="time zone of naive timestamps (no UTC offset) in the "
                   "input, e.g. Asia/Shanghai (default $TRACE_AUDIT_TZ, else UTC, and ingest says so)")
    p.add_argument("--strict", action="store_true", help="exit 1 when any record was quarantined")
    p.add_argument("--max-record-mb", type=int, default=16, help="records larger than this are quarantined (default 16)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--wait", type=seconds, default=DEFAULT_WAIT, metavar="SECONDS",
                   help=f"how long to wait for the database while another process (the dashboard, the "
                        f"receiver, another ingest) has it open (default {DEFAULT_WAIT:g})")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--config", default=None, metavar="FILE",
                   help="trace-audit.toml to read [redaction] from (default: ./trace-audit.toml if present)")
    p.add_argument("--no-redaction", action="store_true",
                   help="store personal data as it comes (redaction is on by default)")
    p.add_argument("--redaction-report", action="store_true",
                   help="write nothing; show what redaction would replace, per column and rule")
    p.set_defaults(run=run)


def naive_zone(given: str | None) -> tuple[str, str]:
    """(zone naive times are read in, who chose it): --tz, else $TRACE_AUDIT_TZ, else UTC by default."""
    if given:
        return given, "--tz"
    if os.environ.get("TRACE_AUDIT_TZ"):
        return os.environ["TRACE_AUDIT_TZ"], "$TRACE_AUDIT_TZ"
    return "UTC", "default"


def run(args) -> int:
    from ..ingest.load.loader import ingest

    from .settings import redaction_settings  # imports the redaction room: only when ingesting

    redaction = redaction_settings(args.config, disabled=args.no_redaction)
    if args.redaction_report:
        from ..ingest.load.dry_run import dry_run

        try:
            report = dry_run(args.paths, redaction, tz=naive_zone(args.tz)[0], max_record_bytes=args.max_record_mb * 1024 * 1024)
            print(report.table())
        except ValueError as exc:
            raise UserError(str(exc)) from exc
        return 0
    try:
        tz, tz_source = naive_zone(args.tz)
        summary = ingest(args.paths, args.db, tz=tz, tz_source=tz_source, max_record_bytes=args.max_record_mb * 1024 * 1024,
                         progress=False if args.no_progress else None, redaction=redaction,
                         wait_seconds=args.wait, on_wait=lambda note: print(safe(note), file=sys.stderr, flush=True))
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        print(json.dumps({
            "files": [{"path": f.path, "status": f.status, "records": f.records, "counts": f.counts,
                       "quarantined": f.errors,
                       "formats": f.formats, "message": f.message, "redaction": f.redaction.as_dict(),
                       "tz": f.tz or None, "tz_source": f.tz_source or None, "naive_times": f.naive_times}
                      for f in summary.files],
            "totals": summary.totals(),
            "skipped": summary.skipped,
        }, ensure_ascii=False, indent=2))
    else:
        _print_summary(summary)
    _warn_naive_utc(summary)
    if any(f.internal for f in summary.failed):
        return 70  # records went unaccounted: a bug, said per file above
    if summary.failed:
        return 2
    if _nothing_loaded(summary):
        sys.stderr.write("nothing was loaded: no file held a record trace-audit could read "
                         "(see the reasons above, or trace-audit stats --errors)\n")
        return 1
    if args.strict and summary.quarantined:
        return 1
    return 0


def _nothing_loaded(summary) -> bool:
    """No row of any table came in, and no file was skipped as already loaded (a re-run is fine)."""
    if any(f.status == "already_loaded" for f in summary.files):
        return False
    return not any(n for k, n in summary.totals().items() if k != "ingest_errors")


def _warn_naive_utc(summary) -> None:
    """Naive times read as UTC because nobody named a zone: a Beijing-time dump read so hides eight
    hours of stuck tasks and nothing fails, so say it plainly (stderr, also under --json)."""
    files = [f.path for f in summary.files if f.status == "loaded" and f.naive_read_as_default]
    if not files:
        return
    which = safe(files[0]) + (f" and {len(files) - 1} more file(s) hold" if len(files) > 1 else " holds")
    sys.stderr.write(
        f"note: {which} times without a UTC offset; they were read as UTC because neither --tz nor "
        "$TRACE_AUDIT_TZ named a zone. If they are local times (e.g. Beijing time, UTC+8), load them into a "
        "fresh database with --tz Asia/Shanghai (a file already loaded is skipped). The dashboard shows this too.\n")


def _print_summary(summary) -> None:
    out = sys.stdout
    for f in summary.files:
        if f.status == "loaded":
            parts = ", ".join(f"{n} {t}" for t, n in f.counts.items() if n)
            fmt = f" [{', '.join(f.formats)}]" if f.formats else ""
            out.write(f"loaded   {f.path}{fmt}: {parts or 'no records'}")
            out.write(f"; {f.errors} quarantined\n" if f.errors else "\n")
            if f.redaction.total:
                out.write(f"         {f.redaction.summary()}\n")
            for line, reason in f.first_errors:
                out.write(f"         {f.path}:{line}: {reason}\n")
            if f.errors > len(f.first_errors):
                out.write("         ... see all: trace-audit stats --errors\n")
        elif f.status == "already_loaded":
            out.write(f"skipped  {f.path}: {f.message}\n")
        else:
            out.write(f"FAILED   {f.message}\n")
    for path in summary.skipped:
        out.write(f"skipped  {path}: its ending is not a trace format (name the file to read it anyway)\n")
    t = summary.totals()
    out.write("total: " + ", ".join(f"{n} {k}" for k, n in t.items()) + "\n")
