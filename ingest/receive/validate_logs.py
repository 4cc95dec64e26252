"""Validation of an OTLP logs request before it is acknowledged, as `validate` does for traces.

A log record is stored unless its ids or times cannot be read (ids are optional on a log: a
record outside any trace is kept); the rest of the request is spooled and the rejected records
are counted in partial success. The checks are the logs reader's own (`otlp.logs`), so what is
acknowledged here is what the loader stores.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from ..read.otlp.logs import SCOPE_KEYS, json_record_values, json_structure, record_problem
from ..read.otlp.spans import BadSpan, dumps
from .validate import _SURROGATE_ESCAPE, MAX_RECORD_BYTES, Checked, Refused, drop_bad, read_json, split_request


def check_logs_protobuf(body: bytes) -> Checked:
    try:
        request = ExportLogsServiceRequest.FromString(body)
    except DecodeError as exc:
        raise Refused(400, f"the body is not an OTLP ExportLogsServiceRequest in protobuf: {exc}") from exc
    out = Checked("logs.pb")
    for rl in request.resource_logs:
        for sl in rl.scope_logs:
            drop_bad(sl.log_records, record_problem, out)
    if out.accepted:
        out.records.append(request.SerializeToString() if out.rejected else body)
    return out


def check_logs_json(body: bytes, max_record_bytes: int = MAX_RECORD_BYTES) -> Checked:
    obj, _, recoded = read_json(body)
    try:
        tree = json_structure(obj)
    except BadSpan as exc:
        raise Refused(400, f"not an OTLP logs request: {exc}") from exc
    out = Checked("logs.jsonl")
    for _, _, scopes in tree:
        for sl, records in scopes:
            keep = out.keep_readable(records, json_record_values)
            if len(keep) != len(records):
                sl["logRecords" if "logRecords" in sl else "log_records"] = keep
    if not out.accepted:
        return out
    if not out.rejected and not recoded and not _SURROGATE_ESCAPE.search(body) and len(body) <= max_record_bytes:
        out.records.append(body)
        return out
    try:
        payload = dumps(obj).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise Refused(400, "the body holds a lone surrogate escape (\\ud800-\\udfff without its pair), "
                           "which is not valid Unicode") from exc
    if len(payload) <= max_record_bytes:
        out.records.append(payload)
    else:  # one record of the loader's at most: cut into requests, each record with its resource and scope
        split_request(tree, max_record_bytes, out, "resourceLogs", SCOPE_KEYS, ("logRecords", "log_records"),
                      "log record")
    return out
