"""The frame loop of one file, shared by `ingest` and its dry run (`ingest --redaction-report`).

Framing (with the binary sniffers, so a protobuf file is read as protobuf), decoding and
redaction, in that order, each frame as the loader writes it. The dry run runs this same loop
and writes nothing, so what it reports is what ingest redacts.
"""

from __future__ import annotations

from contextlib import closing, contextmanager
from typing import Iterator

from ..read.decoder import Decoded, Decoder
from ..read.framing import frames
from ..read.registry import BINARY_SNIFFERS
from ..redact.redactor import Redactor, redact_decoded
from ..redact.report import RedactionReport
from .pipeline import ahead


def decoded_frames(stream, decoder: Decoder, shown: str, max_record_bytes: int):
    """(bytes read so far, decoded rows) per frame of `stream`; framing runs a frame ahead."""
    with closing(ahead(frames(stream, max_record_bytes, BINARY_SNIFFERS), name="trace-audit framing")) as framed:
        for frame in framed:
            yield frame.bytes_read, decoder.decode(frame, shown)


@contextmanager
def redacted_frames(stream, decoder: Decoder, shown: str, max_record_bytes: int, redactor: Redactor | None,
                    report: RedactionReport) -> Iterator[Iterator[tuple[int, Decoded]]]:
    """(bytes read so far, decoded rows with personal data replaced) per frame of `stream`.

    Framing and decoding run ahead in their own threads (see pipeline.py); redaction runs in
    the caller's thread, the writing one, while the decoding thread works on the next frame
    (in the decoding thread it added to the slowest stage). Counts go to `report`. On leaving
    the block the stages stop, and are waited for, before the caller closes the file and the
    decoder serves the next one.
    """
    decoding = decoded_frames(stream, decoder, shown, max_record_bytes)
    with closing(ahead(decoding, name="trace-audit decoding")) as decoded_stream:
        yield ((n, redact_decoded(decoded, redactor, report)) for n, decoded in decoded_stream)
