"""Canonical JSONL: `{"record": "task" | "step" | "message" | "audit", ...}`.

The keys are the warehouse column names. The field mappings are derived from the contract's
pydantic models (`ingest/read/records.py`, whose JSON Schema `trace-audit schema` prints), so
what is published and what is read are one list.
"""

from __future__ import annotations

from ..records import RECORD_MODELS, contract_fields
from ..vocabulary import MESSAGE_ROLE, STEP_KIND
from ..field_reader import FieldReader, Mapping

TASK, STEP, MESSAGE, AUDIT = (contract_fields(RECORD_MODELS[kind]) for kind in ("task", "step", "message", "audit"))


class CanonicalReader(FieldReader):
    name = "canonical"
    claims = [
        (kind, f"list_contains(k, 'record') AND lower(raw ->> '$.record') = '{kind}'")
        for kind in ("task", "step", "message", "audit")
    ]
    mappings = {
        "task": Mapping("tasks", TASK, {"source": "coalesce(source, 'canonical')"}),
        "step": Mapping("steps", STEP, {"kind": STEP_KIND}),
        "message": Mapping("messages", MESSAGE, {"role": MESSAGE_ROLE, "source": "coalesce(source, 'canonical')"}),
        "audit": Mapping("audit_logs", AUDIT, {"source": "coalesce(source, 'canonical')"}),
    }
