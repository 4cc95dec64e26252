"""`trace-audit serve-otlp [--port 4318] [--token T]`: receive OpenTelemetry traces live."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading

from .errors import UserError
from .options import add_db_option, zone, port, positive
from ..dashboard.net import is_loopback

HELP = """Receive traces over OTLP/gRPC (port 4317) and OTLP/HTTP (port 4318: POST
/v1/traces, protobuf or JSON, gzip) and load them into the warehouse. Point any
OpenTelemetry SDK at it:

  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317 python my_agent.py   # gRPC, the SDK default
  OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 python my_agent.py   # HTTP

Each request is written to a spool folder and fsynced before it is
acknowledged; a loader thread moves the spool into the database every
--drain-interval seconds in short transactions. Stopping (Ctrl-C) loads what
is left; after a crash the next start loads the spool first.

While it runs, other trace-audit commands and the dashboard keep working:
they wait a moment when they catch the receiver in the middle of a load."""


def register(sub) -> None:
    p = sub.add_parser("serve-otlp", help="receive OpenTelemetry traces over OTLP/gRPC and OTLP/HTTP", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_db_option(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=port, default=4318, help="OTLP/HTTP port (default 4318; 0: a free one)")
    p.add_argument("--grpc-port", type=port, default=4317, help="OTLP/gRPC port (default 4317; 0: a free one)")
    p.add_argument("--no-grpc", action="store_true", help="serve OTLP/HTTP only")
    p.add_argument("--token", default=os.environ.get("TRACE_AUDIT_OTLP_TOKEN"),
                   help="require 'Authorization: Bearer TOKEN' (default: $TRACE_AUDIT_OTLP_TOKEN; "
                        "exporters send it with OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%%20TOKEN)")
    p.add_argument("--spool", default=None, metavar="DIR",
                   help="where acknowledged requests wait to be loaded (default: <db>.otlp-spool next to the db)")
    p.add_argument("--max-request-mb", type=positive, default=32,
                   help="largest request, after decompression (default 32)")
    p.add_argument("--max-spool-mb", type=positive, default=1024,
                   help="while the warehouse cannot take writes (disk full), answer 503 once this much waits "
                        "in the spool, so exporters hold and retry (default 1024)")
    p.add_argument("--drain-interval", type=positive, default=1.0, help="seconds between loads (default 1)")
    p.add_argument("--no-drain", action="store_true",
                   help="accept and spool only, never load (for tests of crash recovery)")
    p.add_argument("--tz", default="UTC", type=zone, help=argparse.SUPPRESS)
    p.add_argument("--config", default=None, metavar="FILE",
                   help="trace-audit.toml to read [redaction] from, as ingest does (default: ./trace-audit.toml "
                        "if present)")
    p.add_argument("--quiet", action="store_true", help="no log lines")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..ingest.receive.receiver import Receiver, ReceiverConfig, default_spool_dir
    from ..queries.warehouse.db import default_db_path
    from .settings import redaction_settings

    redaction = redaction_settings(args.config)  # a bad section is a usage error before anything listens

    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    db_path = args.db or default_db_path()
    if not is_loopback(args.host) and not args.token:
        print(f"trace-audit: warning: listening on {args.host} without --token: anyone who can reach this "
              "port can write traces", file=sys.stderr)
    config = ReceiverConfig(db_path=db_path, spool_dir=args.spool or default_spool_dir(db_path), host=args.host,
                            port=args.port, grpc_port=None if args.no_grpc else args.grpc_port, token=args.token,
                            max_bytes=int(args.max_request_mb * 1024 * 1024), drain_interval=args.drain_interval,
                            drain=not args.no_drain, tz=args.tz, max_spool_bytes=int(args.max_spool_mb * 1024 * 1024),
                            redaction=redaction)
    receiver = Receiver(config)
    try:
        receiver.start()
    except OSError as exc:
        ports = f"{args.port}" + ("" if args.no_grpc else f" or {args.grpc_port}")
        raise UserError(f"cannot listen on {args.host} port {ports}: {exc.strerror or exc} "
                        "(is another receiver or Collector running? pick another --port / --grpc-port, "
                        "or --no-grpc)") from exc
    grpc_line = f" and gRPC {args.host}:{receiver.grpc_port}" if receiver.grpc_port else ""
    print(f"receiving OTLP on HTTP {receiver.url}/v1/traces{grpc_line} -> {db_path} (spool {config.spool_dir}); "
          "Ctrl-C to stop", file=sys.stderr, flush=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        while not stopped.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    receiver.stop()
    s = receiver.stats
    print(f"stopped: {s.requests} requests, {s.spans_accepted} spans accepted, {s.spans_rejected} rejected, "
          f"{s.spans_loaded} loaded; {s.logs_accepted} log records accepted, {s.logs_rejected} rejected, "
          f"{s.logs_loaded} loaded", file=sys.stderr)
    return 0


