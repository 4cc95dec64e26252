"""`trace-audit serve-otlp`: an OTLP receiver that agents export to unchanged.

OTLP/HTTP here (OTLP/gRPC beside it in `grpc_server`, through the same
`Receiver.accept`): `POST /v1/traces` and `POST /v1/logs` with `application/x-protobuf` or
`application/json`, optionally gzip-compressed, as the OTLP/HTTP specification
describes:

- 200 with an `Export...ServiceResponse` in the request's encoding; its
  `partial_success` says how many items were rejected and why;
- 400 with a `google.rpc.Status` when the payload cannot be decoded;
- 401 without the right bearer token (when one is configured);
- 400 saying what to set for a gRPC request sent to this port (HTTP/2 preface
  or `Content-Type: application/grpc`);
- 413 over the size limit (compressed or decompressed), 415 for other content
  types or encodings, 404/405 for other paths and methods;
- 503 with Retry-After when the spool cannot be written (disk full), or when
  the warehouse cannot take writes and the spool has grown past its bound
  (`--max-spool-mb`), so the exporter retries instead of dropping.

Every accepted request is on disk (spool, fsynced) before the answer; a
single drainer thread loads the spool into the warehouse in short
transactions (see `spool`). Standard library HTTP (ThreadingHTTPServer): the
work per request is decoding and one fsync, which this does at well over the
target rate, so no web framework is needed.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from google.rpc.status_pb2 import Status

from ..redact.config import RedactionConfig
from .http_limits import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, BoundedHTTPServer
from .requests import JSON, LOGS, PROTOBUF, SIGNALS, Rejected, Signal, answer, bearer_matches, check
from . import drain
from .spool import Spool
from .validate import Checked, inflate

log = logging.getLogger("trace_audit.otlp")

INVALID_ARGUMENT = 3  # google.rpc.Code
RETRY_AFTER_SECONDS = 5  # what a full spool asks exporters to wait (HTTP Retry-After, gRPC RetryInfo)
_ENDPOINTS = "traces go to POST /v1/traces, logs to POST /v1/logs"
DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_SPOOL_BYTES = 1024 * 1024 * 1024


@dataclass
class ReceiverConfig:
    db_path: str
    spool_dir: str
    host: str = "127.0.0.1"
    port: int = 4318
    grpc_port: int | None = None  # OTLP/gRPC port (the CLI's default is 4317); 0 picks a free one; None: no gRPC
    token: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    drain_interval: float = 1.0
    drain: bool = True  # False: accept and spool only (tests simulate a crash before loading)
    tz: str = "UTC"
    max_spool_bytes: int = DEFAULT_MAX_SPOOL_BYTES  # while loads fail, 503 once the spool is past this
    max_backoff: float = 60.0  # seconds between retries of a load that failed, at most
    max_connections: int = DEFAULT_MAX_CONNECTIONS  # open at once; more are answered 503 and closed
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT  # seconds a read (header, body, next request) may wait
    redaction: RedactionConfig | None = None  # [redaction] of trace-audit.toml, as ingest reads it; None: defaults


@dataclass
class Stats:
    requests: int = 0
    spans_accepted: int = 0
    spans_rejected: int = 0
    spans_loaded: int = 0
    logs_accepted: int = 0
    logs_rejected: int = 0
    logs_loaded: int = 0
    drains: int = 0
    failed_drains: int = 0  # loads that failed in a row (0: the last one stored everything)
    last_error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class OtlpHandler(BaseHTTPRequestHandler):
    server_version = "trace-audit-otlp/1"
    protocol_version = "HTTP/1.1"  # keep-alive: exporters reuse one connection

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path in ("/", "/health"):
            self._send(200, "text/plain", b"trace-audit OTLP receiver: POST /v1/traces, /v1/logs\n")
        elif path in SIGNALS:
            self._status(405, f"use POST for {path}", JSON, extra={"Allow": "POST"})
        else:
            self._status(404, f"no such endpoint {path}; {_ENDPOINTS}", JSON)

    def __getattr__(self, name: str):
        # Every method but GET and POST (PUT, DELETE, PATCH, FOO...): 405 with Allow, not 501 in HTML.
        if name.startswith("do_"):
            return self._not_allowed
        raise AttributeError(name)

    def _not_allowed(self) -> None:
        self._drain_body()
        path = self.path.split("?", 1)[0]
        allow = "POST" if path in SIGNALS else "GET"
        self._status(405, f"{self.command} is not allowed on {path}; use {allow}", JSON, extra={"Allow": allow})

    def send_error(self, code, message=None, explain=None):
        # The standard library's own errors (bad request line, headers too long, timeouts) as JSON.
        self.close_connection = True
        self._status(code, message or explain or "bad request", JSON)

    def parse_request(self) -> bool:
        # A gRPC client (or any HTTP/2 client with prior knowledge) opens with the HTTP/2
        # preface, which the standard library answers with a bare 505: say what to set instead.
        if self.raw_requestline.startswith(b"PRI * HTTP/2"):
            self.command, self.request_version, self.close_connection = "PRI", "HTTP/1.1", True
            self.requestline = "PRI * HTTP/2.0"
            self._status(400, self._grpc_hint("an HTTP/2 (gRPC) connection"), JSON)
            return False
        return super().parse_request()

    def do_POST(self):
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        answer_type = PROTOBUF if ctype == PROTOBUF else JSON
        try:
            path = self.path.split("?", 1)[0]
            if ctype.startswith("application/grpc"):
                self._drain_body()
                raise Rejected(400, self._grpc_hint(f"a gRPC request (Content-Type {ctype})"))
            signal = SIGNALS.get(path)
            if signal is None:
                self._drain_body()
                raise Rejected(404, f"no such endpoint {path}; {_ENDPOINTS}")
            if receiver.config.token and not self._authorised(receiver.config.token):
                self._drain_body()
                raise Rejected(401, "missing or wrong bearer token (Authorization: Bearer ...)")
            if ctype not in (PROTOBUF, JSON):
                self._drain_body()
                raise Rejected(415, f"unsupported Content-Type {ctype or '(none)'}; use {PROTOBUF} or {JSON}")
            body = self._body(receiver.config.max_bytes)
            checked = receiver.accept(signal, ctype, body)
            self._send(200, answer_type, answer(signal, answer_type, checked.rejected, checked.reasons))
        except Rejected as r:
            extra = {"Retry-After": str(RETRY_AFTER_SECONDS)} if r.code == 503 else None
            self._status(r.code, r.message, answer_type, extra=extra)

    def _grpc_hint(self, what: str) -> str:
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        port = receiver.grpc_port
        where = (f"send gRPC to port {port} (OTEL_EXPORTER_OTLP_ENDPOINT=http://{receiver.config.host}:{port})"
                 if port else "this receiver serves no gRPC (started with --no-grpc)")
        return (f"this port speaks OTLP/HTTP and got {what}: {where}, or set "
                "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf to export to this port")

    # ---- pieces -------------------------------------------------------------------------

    def _authorised(self, token: str) -> bool:
        return bearer_matches(self.headers.get("Authorization") or "", token)

    def _drain_body(self) -> None:
        length = self.headers.get("Content-Length")
        if length and length.isdigit() and int(length) <= 1024 * 1024:
            self.rfile.read(int(length))
        else:
            self.close_connection = True

    def _body(self, limit: int) -> bytes:
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self._chunked(limit)
        elif length is None or not length.strip().isdigit():
            self.close_connection = True
            raise Rejected(411 if length is None else 400, "Content-Length is required")
        else:
            n = int(length)
            if n > limit:
                self.close_connection = True
                raise Rejected(413, f"request of {n} bytes is over the {limit} byte limit (--max-request-mb)")
            raw = self.rfile.read(n)
        return inflate(raw, self.headers.get("Content-Encoding"), limit)

    def _chunked(self, limit: int) -> bytes:
        parts, total = [], 0
        while True:
            size_line = self.rfile.readline(1024)
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                self.close_connection = True
                raise Rejected(400, "malformed chunked body")
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            total += size
            if total > limit:
                self.close_connection = True
                raise Rejected(413, f"request is over the {limit} byte limit (--max-request-mb)")
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def _status(self, code: int, message: str, answer_type: str, extra: dict | None = None) -> None:
        grpc_code = INVALID_ARGUMENT if code == 400 else {401: 16, 404: 5, 413: 8, 415: 3, 503: 14}.get(code, 2)
        if answer_type == PROTOBUF:
            body = Status(code=grpc_code, message=message).SerializeToString()
        else:
            body = json.dumps({"code": grpc_code, "message": message}).encode()
        self._send(code, answer_type, body, extra)

    def _send(self, code: int, ctype: str, body: bytes, extra: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


class Receiver:
    """The HTTP server, the spool and the drainer thread, started and stopped together."""

    def __init__(self, config: ReceiverConfig):
        self.config = config
        self.spool = Spool(config.spool_dir)
        self.stats = Stats()
        self._stop = threading.Event()
        self._drain_lock = threading.Lock()
        self.httpd: BoundedHTTPServer | None = None
        self.grpc = None  # grpc_server.GrpcServer once started
        self._threads: list[threading.Thread] = []

    def accept(self, signal: Signal, encoding: str, body: bytes) -> Checked:
        """Check one export request and persist what can be stored, before it is acknowledged.

        The one path of HTTP and gRPC alike: `requests.check` judges the request, the spool
        fsyncs it. Raises Rejected (400 unreadable; 503 the spool cannot be written, or is past
        its bound while the warehouse refuses writes)."""
        self.refuse_when_full()
        checked = check(signal, encoding, body)
        if checked.records:
            try:
                self.spool.append(checked.kind, *checked.records)
            except OSError as exc:
                log.error("cannot write the spool: %s", exc)
                raise Rejected(503, f"cannot persist the request ({exc.strerror or exc}); retry later") from exc
        self.count(checked.accepted, checked.rejected, logs=signal is LOGS)
        return checked

    @property
    def grpc_port(self) -> int | None:
        return self.grpc.port if self.grpc is not None else None

    def count(self, accepted: int, rejected: int, logs: bool = False) -> None:
        what = "logs" if logs else "spans"
        with self.stats.lock:
            self.stats.requests += 1
            setattr(self.stats, f"{what}_accepted", getattr(self.stats, f"{what}_accepted") + accepted)
            setattr(self.stats, f"{what}_rejected", getattr(self.stats, f"{what}_rejected") + rejected)

    def refuse_when_full(self) -> None:
        """503 while the warehouse refuses writes and the spool is past its bound: what is
        acknowledged must fit on disk until the warehouse takes it (the spool's own disk
        filling up is answered 503 by the failed append)."""
        if self.stats.failed_drains and self.spool.pending_bytes() > self.config.max_spool_bytes:
            raise Rejected(503, f"the warehouse cannot take writes ({self.stats.last_error}) and "
                               f"{self.config.max_spool_bytes // 1048576} MiB wait in the spool; retry later")

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2] if self.httpd else (self.config.host, self.config.port)
        return f"http://{host}:{port}"

    def start(self) -> "Receiver":
        if self.config.drain:
            self.drain_once()  # what a previous run acknowledged goes in first
        if self.config.grpc_port is not None:
            from .grpc_server import GrpcServer  # grpcio loads only when gRPC is served

            self.grpc = GrpcServer(self).start()
        try:
            self.httpd = BoundedHTTPServer((self.config.host, self.config.port), OtlpHandler,
                                           self.config.max_connections, self.config.idle_timeout)
        except OSError:
            if self.grpc is not None:
                self.grpc.stop()
            raise
        self.httpd.receiver = self  # type: ignore[attr-defined]
        t = threading.Thread(target=self.httpd.serve_forever, name="otlp-http", daemon=True)
        t.start()
        self._threads.append(t)
        if self.config.drain:
            d = threading.Thread(target=self._drain_loop, name="otlp-drain", daemon=True)
            d.start()
            self._threads.append(d)
        return self

    def stop(self) -> None:
        """Stop accepting, then load what is spooled (unless draining is off)."""
        self._stop.set()
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
        if self.grpc is not None:
            self.grpc.stop()
        for t in self._threads:
            t.join(timeout=30)
        if self.config.drain:
            self.drain_once(wait_seconds=30)
        self.spool.close()

    def _drain_loop(self) -> None:
        drain.loop(self)

    def drain_once(self, wait_seconds: float = 2.0) -> int:
        """Seal the open segments and load every ready one; returns spans loaded."""
        return drain.once(self, wait_seconds)


def default_spool_dir(db_path: str) -> str:
    return str(Path(db_path).with_name(Path(db_path).name + ".otlp-spool"))
