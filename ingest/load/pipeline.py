"""Let the stages of one file's load run side by side.

A file goes through three stages: framing (read, hash, cut into numbered
records; a binary reader decodes here too), decoding (classify and convert
in the decoder's DuckDB) and writing (redact, then the loader's
transaction). Run one after the other, two cores sit half idle: each
stage is mostly C code that releases the GIL (file reads, hashlib, numpy,
DuckDB, Arrow kernels), so they can overlap. `ahead` runs a
stage in its own thread, a few items ahead of the stage that consumes it.

Order is kept, and an error in a stage is raised in the consumer, as if the
stages ran in line. When the consumer stops early (an error, Ctrl-C), the
stage is told to stop and is waited for, so nothing of a file is still
running when the next file starts (the decoder's connection is reused).
"""

from __future__ import annotations

import queue
import threading
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")

_DONE = object()
_POLL_SECONDS = 0.1


class _Failed:
    def __init__(self, exc: BaseException):
        self.exc = exc


def ahead(items: Iterable[T], depth: int = 1, name: str = "trace-audit stage") -> Iterator[T]:
    """The items of `items`, produced in a thread up to `depth` items ahead of the caller."""
    handoff: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def hand(item) -> bool:
        while not stop.is_set():
            try:
                handoff.put(item, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        source = iter(items)
        try:
            for item in source:
                if not hand(item):
                    return
            hand(_DONE)
        except BaseException as exc:  # handed to the consumer, raised there
            hand(_Failed(exc))
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()
    try:
        while True:
            item = handoff.get()
            if item is _DONE:
                return
            if isinstance(item, _Failed):
                raise item.exc
            yield item
    finally:
        stop.set()
        worker.join()
