"""`trace-audit serve-otlp`: an OTLP/HTTP trace receiver that agents export to unchanged.

`POST /v1/traces` with `application/x-protobuf` or `application/json`,
optionally gzip-compressed, as the OTLP/HTTP specification describes:

- 200 with an `ExportTraceServiceResponse` in the request's encoding; its
  `partial_success` says how many spans were rejected (unreadable ids) and why;
- 400 with a `google.rpc.Status` when the payload cannot be decoded;
- 401 without the right bearer token (when one is configured);
- 413 over the size limit (compressed or decompressed), 415 for other content
  types or encodings, 404/405 for other paths and methods;
- 503 with Retry-After when the spool cannot be written (disk full), so the
  exporter retries instead of dropping.

Every accepted request is on disk (spool, fsynced) before the answer; a
single drainer thread loads the spool into the warehouse in short
transactions (see `spool`). Standard library HTTP (ThreadingHTTPServer): the
work per request is decoding and one fsync, which this does at well over the
target rate, so no web framework is needed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)

from .spool import Spool
from .validate import Checked, Refused, check_json, check_protobuf, inflate

log = logging.getLogger("trace_audit.otlp")

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
INVALID_ARGUMENT = 3  # google.rpc.Code
DEFAULT_MAX_BYTES = 32 * 1024 * 1024


@dataclass
class ReceiverConfig:
    db_path: str
    spool_dir: str
    host: str = "127.0.0.1"
    port: int = 4318
    token: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    drain_interval: float = 1.0
    drain: bool = True  # False: accept and spool only (tests simulate a crash before loading)
    tz: str = "UTC"


@dataclass
class Stats:
    requests: int = 0
    spans_accepted: int = 0
    spans_rejected: int = 0
    spans_loaded: int = 0
    drains: int = 0
    last_error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_Reject = Refused  # the validation's refusal is the receiver's too


class OtlpHandler(BaseHTTPRequestHandler):
    server_version = "trace-audit-otlp/1"
    protocol_version = "HTTP/1.1"  # keep-alive: exporters reuse one connection

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path in ("/", "/health"):
            self._send(200, "text/plain", b"trace-audit OTLP receiver: POST /v1/traces\n")
        elif path == "/v1/traces":
            self._status(405, "use POST for /v1/traces", JSON, extra={"Allow": "POST"})
        else:
            self._status(404, f"no such endpoint {path}; traces go to POST /v1/traces", JSON)

    def do_POST(self):
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        answer_type = PROTOBUF if ctype == PROTOBUF else JSON
        try:
            path = self.path.split("?", 1)[0]
            if path != "/v1/traces":
                self._drain_body()
                raise _Reject(404, f"no such endpoint {path}; traces go to POST /v1/traces")
            if receiver.config.token and not self._authorised(receiver.config.token):
                self._drain_body()
                raise _Reject(401, "missing or wrong bearer token (Authorization: Bearer ...)")
            if ctype not in (PROTOBUF, JSON):
                self._drain_body()
                raise _Reject(415, f"unsupported Content-Type {ctype or '(none)'}; use {PROTOBUF} or {JSON}")
            body = self._body(receiver.config.max_bytes)
            checked = check_protobuf(body) if ctype == PROTOBUF else check_json(body)
            if checked.records:
                try:
                    receiver.spool.append(checked.kind, *checked.records)
                except OSError as exc:
                    log.error("cannot write the spool: %s", exc)
                    raise _Reject(503, f"cannot persist the request ({exc.strerror or exc}); retry later")
            receiver.count(checked.accepted, checked.rejected)
            self._success(answer_type, checked)
        except _Reject as r:
            extra = {"Retry-After": "5"} if r.code == 503 else None
            self._status(r.code, r.message, answer_type, extra=extra)

    # ---- pieces -------------------------------------------------------------------------

    def _authorised(self, token: str) -> bool:
        got = self.headers.get("Authorization") or ""
        scheme, _, value = got.partition(" ")
        # Digests, not the texts: compare_digest on texts of different lengths returns early.
        return scheme.lower() == "bearer" and hmac.compare_digest(
            hashlib.sha256(value.strip().encode()).digest(), hashlib.sha256(token.encode()).digest())

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
            raise _Reject(411 if length is None else 400, "Content-Length is required")
        else:
            n = int(length)
            if n > limit:
                self.close_connection = True
                raise _Reject(413, f"request of {n} bytes is over the {limit} byte limit (--max-request-mb)")
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
                raise _Reject(400, "malformed chunked body")
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            total += size
            if total > limit:
                self.close_connection = True
                raise _Reject(413, f"request is over the {limit} byte limit (--max-request-mb)")
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def _success(self, answer_type: str, checked: Checked) -> None:
        rejected, message = checked.rejected, checked.message
        if answer_type == PROTOBUF:
            resp = ExportTraceServiceResponse()
            if rejected:
                resp.partial_success.CopyFrom(ExportTracePartialSuccess(rejected_spans=rejected, error_message=message))
            self._send(200, PROTOBUF, resp.SerializeToString())
        else:
            body = {"partialSuccess": {"rejectedSpans": str(rejected), "errorMessage": message}} if rejected else {}
            self._send(200, JSON, json.dumps(body).encode())

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
        self.httpd: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []

    def count(self, accepted: int, rejected: int) -> None:
        with self.stats.lock:
            self.stats.requests += 1
            self.stats.spans_accepted += accepted
            self.stats.spans_rejected += rejected

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2] if self.httpd else (self.config.host, self.config.port)
        return f"http://{host}:{port}"

    def start(self) -> "Receiver":
        if self.config.drain:
            self.drain_once()  # what a previous run acknowledged goes in first
        self.httpd = ThreadingHTTPServer((self.config.host, self.config.port), OtlpHandler)
        self.httpd.daemon_threads = True
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
        for t in self._threads:
            t.join(timeout=30)
        if self.config.drain:
            self.drain_once(wait_seconds=30)
        self.spool.close()

    def _drain_loop(self) -> None:
        while not self._stop.wait(self.config.drain_interval):
            try:
                self.drain_once()
            except Exception as exc:  # noqa: BLE001 - the drainer must outlive one bad batch
                log.exception("drain failed: %s", exc)
                self.stats.last_error = str(exc)

    def drain_once(self, wait_seconds: float = 2.0) -> int:
        """Seal the open segments and load every ready one; returns spans loaded."""
        from ..load.loader import ingest
        from ...queries.warehouse import db

        with self._drain_lock:
            self.spool.seal()
            ready = self.spool.ready()
            if not ready:
                return 0
            try:
                con = db.connect(self.config.db_path, wait_seconds=wait_seconds)
            except db.DatabaseBusy as exc:
                log.warning("warehouse busy, will retry: %s", exc)
                self.stats.last_error = str(exc)
                return 0
            loaded = 0
            started = time.monotonic()
            try:
                summary = ingest([str(p) for p in ready], con=con, tz=self.config.tz, progress=False)
            finally:
                con.close()
            for path, result in zip(ready, summary.files):
                if result.status in ("loaded", "already_loaded"):
                    loaded += result.counts.get("otel_spans", 0)
                    path.unlink()
                else:
                    target = self.spool.set_aside(path)
                    log.error("%s could not be loaded and was moved to %s: %s", path.name, target, result.message)
                    self.stats.last_error = result.message
            with self.stats.lock:
                self.stats.spans_loaded += loaded
                self.stats.drains += 1
            log.info("loaded %d spans from %d spool segment(s) in %.2fs", loaded, len(ready),
                     time.monotonic() - started)
            return loaded


def default_spool_dir(db_path: str) -> str:
    return str(Path(db_path).with_name(Path(db_path).name + ".otlp-spool"))
