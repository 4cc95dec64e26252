"""The readers, in the order their claims are tried (first match wins).

To add a format: write a reader (see `base.py`) and list it here. More
specific claims go first (a canonical record has a `record` key; an OTLP
export a `resourceSpans` list), generic table dumps last.

Binary formats are recognised by `BINARY_SNIFFERS` (see `framing.frames`).
Readers that first store raw rows (OTLP: `otel_spans`) leave the derivation of
warehouse rows to the loader, which runs it inside the file's transaction
(`ingest/load/loader.py`, `AFTER_FILE`).
"""

from __future__ import annotations

from .otlp import logs_proto as otlp_logs_proto, proto as otlp_proto
from .base import Reader
from .formats.ag2 import Ag2Reader
from .formats.canonical import CanonicalReader
from .formats.chat import ChatReader
from .formats import inspect_ai
from .formats.langchain import LangChainMessagesReader
from .formats.langfuse import LangfuseReader
from .formats.langsmith import LangSmithReader
from .formats.openai_agents import OpenAIAgentsReader
from .formats.otlp_json import OtlpReader
from .formats import parquet
from .formats.seed001 import Seed001Reader
from .formats.seed004 import Seed004Reader
from .formats.swe_agent import SweAgentReader

READERS: list[Reader] = [
    CanonicalReader(),
    Seed001Reader(),
    inspect_ai.InspectReader(),
    LangSmithReader(),
    OpenAIAgentsReader(),
    LangfuseReader(),
    SweAgentReader(),
    Ag2Reader(),
    ChatReader(),
    LangChainMessagesReader(),
    OtlpReader(),
    Seed004Reader(),
]

BINARY_SNIFFERS = [parquet.sniff, inspect_ai.sniff, otlp_logs_proto.sniff, otlp_proto.sniff]
