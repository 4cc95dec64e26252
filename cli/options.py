"""Options shared by several sub-commands."""

from __future__ import annotations

import argparse

from ..queries.warehouse.db import default_db_path


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, metavar="PATH",
                        help=f"warehouse file (default: $TRACE_AUDIT_DB or ./trace_audit.duckdb; now {default_db_path()})")
