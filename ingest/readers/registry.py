"""The readers, in the order their claims are tried (first match wins).

To add a format: write a reader (see `base.py`) and list it here. More
specific claims go first (a canonical record has a `record` key; an OTLP
export a `resourceSpans` list), generic table dumps last.

Binary formats are recognised by `BINARY_SNIFFERS` (see `framing.frames`).
Readers that first store raw rows and derive warehouse rows from them once a
file is in (OTLP: spans, then tasks/steps/messages) list a hook in
`AFTER_FILE` (see `loader.AfterFile`).
"""

from __future__ import annotations

from trace_audit.ingest.otlp import proto as otlp_proto
from trace_audit.ingest.otlp.rebuild import OtlpTraceRebuild
from trace_audit.ingest.readers.base import Reader
from trace_audit.ingest.readers.canonical import CanonicalReader
from trace_audit.ingest.readers.chat import ChatReader
from trace_audit.ingest.readers.otlp import OtlpReader
from trace_audit.ingest.readers import parquet
from trace_audit.ingest.readers.seed001 import Seed001Reader
from trace_audit.ingest.readers.seed004 import Seed004Reader

READERS: list[Reader] = [
    CanonicalReader(),
    Seed001Reader(),
    ChatReader(),
    OtlpReader(),
    Seed004Reader(),
]

BINARY_SNIFFERS = [parquet.sniff, otlp_proto.sniff]

AFTER_FILE = [OtlpTraceRebuild()]
