"""`trace-audit`: the command line.

Each subcommand lives in its own module `cmd_<name>` beside this one, exposing
`register(subparsers)`; this file only assembles them and turns failures into
one readable line (set TRACE_AUDIT_DEBUG=1 for the traceback).

Exit codes: 0 ok; 1 the command ran but found what it was asked to fail on
(`ingest --strict` with quarantined lines, a rule that errored); 2 a usage or
input problem (bad path, bad option, database missing or busy); 70 an internal
error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import os
import sys

from . import (cmd_dashboard, cmd_demo, cmd_explain, cmd_export, cmd_findings, cmd_ingest, cmd_report,
               cmd_rules, cmd_schema, cmd_serve_otlp, cmd_stats)
from .errors import UserError
from .terminal import SafeWriter, safe
from ..queries.warehouse.db import DatabaseError, is_interrupt

# In the order `--help` lists them.
COMMANDS = [cmd_ingest, cmd_stats, cmd_schema, cmd_demo, cmd_rules, cmd_findings, cmd_explain, cmd_dashboard, cmd_report,
            cmd_serve_otlp, cmd_export]

EPILOG = """exit codes: 0 ok, 1 findings/quarantine when asked to fail on them, 2 input or usage problem, 70 internal error.
database: --db PATH, else $TRACE_AUDIT_DB, else ./trace_audit.duckdb"""


def version() -> str:
    """The installed distribution's version (pyproject.toml is the one place it is written)."""
    from importlib.metadata import PackageNotFoundError, version as dist_version

    try:
        return dist_version("trace-audit")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trace-audit",
        description="Audit what LLM agents said against what they did.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"trace-audit {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    _describe(parser)
    return parser


def _describe(parser: argparse.ArgumentParser) -> None:
    """A sub-command's own --help says what it does: where a command gave only the one-line
    help of the list above, that line becomes its description (recursively, for `rules run` etc.)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, child in action.choices.items():
                if not child.description and helps.get(name):
                    line = helps[name]
                    child.description = line[0].upper() + line[1:] + ("" if line.endswith(".") else ".")
                _describe(child)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    stdout = sys.stdout
    sys.stdout = SafeWriter(stdout)  # no control codes from the data reach the terminal
    try:
        code = args.run(args)
        return int(code or 0)
    except (UserError, DatabaseError) as exc:
        print(f"trace-audit: {safe(str(exc))}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    except KeyboardInterrupt:
        print("trace-audit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback for users
        if is_interrupt(exc):  # Ctrl-C while DuckDB ran a query (any command)
            print("trace-audit: interrupted", file=sys.stderr)
            return 130
        if os.environ.get("TRACE_AUDIT_DEBUG"):
            raise
        print(f"trace-audit: internal error: {type(exc).__name__}: {safe(str(exc))}\n"
              "This is a bug. Re-run with TRACE_AUDIT_DEBUG=1 for details and report it.", file=sys.stderr)
        return 70
    finally:
        try:
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            pass
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
