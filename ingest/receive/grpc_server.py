"""OTLP/gRPC: the TraceService and LogsService `Export` methods, beside the HTTP receiver.

Each call goes through `Receiver.accept`, the same check, spool and fsync as an HTTP
request, before it is answered, so "acknowledged means stored" holds here too. What the
OTLP specification asks of a gRPC server:

- OK with an `Export...ServiceResponse`; `partial_success` counts the spans (log records)
  that were rejected and says why;
- INVALID_ARGUMENT for a request that cannot be decoded (not retryable);
- UNAVAILABLE with a `google.rpc.RetryInfo` when the spool cannot be written (disk full),
  so the exporter waits that long and retries;
- UNAUTHENTICATED without the right bearer token (when one is configured), RESOURCE_EXHAUSTED
  for a message over `--max-request-mb` (grpcio refuses it before it is read) or past 64 calls
  in progress, UNIMPLEMENTED for other services (metrics).

The request bytes are handed over undecoded (no deserializer), so the check parses them once,
as it does for HTTP, and an unchanged request is spooled as it arrived. grpcio decompresses
gzip itself.
"""

from __future__ import annotations

import logging
from concurrent import futures

import grpc
from google.protobuf.duration_pb2 import Duration
from google.rpc.error_details_pb2 import RetryInfo
from google.rpc.status_pb2 import Status

from .http_limits import DEFAULT_MAX_CONNECTIONS
from .requests import LOGS, PROTOBUF, TRACES, Rejected, Signal, answer, bearer_matches

log = logging.getLogger("trace_audit.otlp")

METHODS = {
    "/opentelemetry.proto.collector.trace.v1.TraceService/Export": TRACES,
    "/opentelemetry.proto.collector.logs.v1.LogsService/Export": LOGS,
}
# The HTTP status a request was refused with -> the gRPC code the OTLP spec names for it.
GRPC_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    413: grpc.StatusCode.RESOURCE_EXHAUSTED,
    503: grpc.StatusCode.UNAVAILABLE,
}
WORKERS = 8  # calls served at once; each is a decode and an fsync


class GrpcServer:
    def __init__(self, receiver):
        self.receiver = receiver
        self.port: int | None = None
        self._server: grpc.Server | None = None

    def start(self) -> "GrpcServer":
        cfg = self.receiver.config
        limit = cfg.max_bytes
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="otlp-grpc"),
            handlers=[_Handler(self.receiver)],
            # As many calls in progress as the HTTP side takes connections; past that grpcio answers
            # RESOURCE_EXHAUSTED at once (exporters retry), instead of queueing without bound.
            maximum_concurrent_rpcs=DEFAULT_MAX_CONNECTIONS,
            options=[("grpc.max_receive_message_length", limit), ("grpc.so_reuseport", 0)],
        )
        try:
            port = server.add_insecure_port(f"{cfg.host}:{cfg.grpc_port}")
        except RuntimeError:  # grpcio raises when it cannot bind (older versions answer 0)
            port = 0
        if not port:
            raise OSError(f"cannot listen on {cfg.host}:{cfg.grpc_port} for gRPC (port in use?)")
        server.start()
        self._server, self.port = server, port
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(grace=5).wait(10)
            self._server = None


class _Handler(grpc.GenericRpcHandler):
    def __init__(self, receiver):
        self.receiver = receiver

    def service(self, details):
        signal = METHODS.get(details.method)
        if signal is None:
            return None  # grpcio answers UNIMPLEMENTED
        return grpc.unary_unary_rpc_method_handler(lambda body, context: self._export(signal, body, context))

    def _export(self, signal: Signal, body: bytes, context: grpc.ServicerContext) -> bytes:
        receiver = self.receiver
        token = receiver.config.token
        if token:
            metadata = dict(context.invocation_metadata())
            if not bearer_matches(metadata.get("authorization", ""), token):
                context.abort(grpc.StatusCode.UNAUTHENTICATED,
                              "missing or wrong bearer token (metadata authorization: Bearer ...)")
        try:
            checked = receiver.accept(signal, PROTOBUF, body)
        except Rejected as r:
            code = GRPC_CODES.get(r.code, grpc.StatusCode.INTERNAL)
            if code is grpc.StatusCode.UNAVAILABLE:
                _attach_retry_info(context, code, r.message)
            context.abort(code, r.message)
        return answer(signal, PROTOBUF, checked.rejected, checked.reasons)


def _attach_retry_info(context: grpc.ServicerContext, code: grpc.StatusCode, message: str) -> None:
    """Put a google.rpc.Status carrying RetryInfo in the trailers, where exporters look for it."""
    from .receiver import RETRY_AFTER_SECONDS

    status = Status(code=code.value[0], message=message)
    status.details.add().Pack(RetryInfo(retry_delay=Duration(seconds=RETRY_AFTER_SECONDS)))
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
