"""The readers, in the order their claims are tried (first match wins).

To add a format: write a reader (see `base.py`) and list it here. More
specific claims go first (a canonical record has a `record` key; an OTLP
export a `resourceSpans` list), generic table dumps last.
"""

from __future__ import annotations

from trace_audit.ingest.readers.base import Reader
from trace_audit.ingest.readers.canonical import CanonicalReader
from trace_audit.ingest.readers.chat import ChatReader
from trace_audit.ingest.readers.seed001 import Seed001Reader
from trace_audit.ingest.readers.seed004 import Seed004Reader

READERS: list[Reader] = [
    CanonicalReader(),
    Seed001Reader(),
    ChatReader(),
    Seed004Reader(),
]
