"""`ingest --redaction-report`: what redaction would take out of these files, writing nothing.

It runs the loader's own frame loop (frame_loop.redacted_frames: the same framing with the
binary sniffers, the same decoder and the same redaction call) and stops short of the writes,
so its counts are the counts a real ingest reports. It lives with the loader for that reason:
it is the loader's loop without the loader's writes.
"""

from __future__ import annotations

import secrets

from ..read.decoder import Decoder
from ..read.framing import DEFAULT_MAX_RECORD_BYTES
from ..read.sources import expand, release
from ..redact.config import RedactionConfig
from ..redact.redactor import Redactor
from ..redact.report import RedactionReport
from .frame_loop import redacted_frames


def dry_run(paths: list[str], config: RedactionConfig, tz: str = "UTC",
            max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> RedactionReport:
    """What redaction would replace in the files under `paths`, per column and rule.

    Counts do not depend on the key, so a throwaway key is used and no key file is created.
    Files that cannot be read are passed over (ingest reports them).
    """
    redactor = Redactor(config, secrets.token_bytes(32))
    report = RedactionReport()
    sources, _skipped = expand(paths)
    decoder = Decoder(tz)
    try:
        for source in sources:
            if source.problem:
                continue
            with open(source.path, "rb", buffering=0) as fh:
                with redacted_frames(fh, decoder, source.shown, max_record_bytes, redactor, report) as frames:
                    for _frame in frames:
                        pass
    finally:
        decoder.close()
        release(sources)
    return report
