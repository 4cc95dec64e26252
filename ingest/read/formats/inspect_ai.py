"""Inspect AI evaluation logs (`EvalLog`): the `.json` log, and each sample of a `.eval` zip.

An `EvalLog` is `{version, status, eval: {task, model, run_id, eval_id, ...}, plan, results,
stats, error, samples: [...]}`; a sample is `{id, epoch, input, target, messages, output,
scores, events, error, ...}` (inspect_ai/log/_log.py). One sample becomes one task
`inspect:<eval_id>:<sample id>:<epoch>`: its `messages` (Inspect's ChatMessage: tool calls
`{id, function: <name>, arguments: {...}}`, tool messages with `tool_call_id` and an `error`
`{type, message}`) are read as a chat (`conversation.py`), and its `events` supply what the
messages lack: each tool event (`event: tool`, `id` = the call id) gives the call's start
(`timestamp`) and end (`completed`) and its `error`.

A `.eval` file is a zip (`header.json` or `_journal/start.json`, `samples/<id>_epoch_<n>.json`);
`zip_frames` turns each sample into one record `{version, status, eval, samples: [sample]}` so
both spellings take the same path.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any, BinaryIO, Iterator

from ..base import PythonReader, RecordContext, RowError, Rows
from ..framing import Frame
from .chat import conversation_rows
from .conversation import Transcript, content_text
from .seed001 import text_or_json, timestamp

ZIP_MAGIC = b"PK\x03\x04"
MAX_ZIP_BYTES = 2 * 1024 * 1024 * 1024
_SAMPLE_KEYS = {"id", "epoch", "input", "target", "messages", "output", "events", "attachments", "store"}


class InspectReader(PythonReader):
    name = "inspect"
    claims = [("log", "list_contains(k, 'eval') AND (list_contains(k, 'samples') OR "
                      "(list_contains(k, 'version') AND list_contains(k, 'status')))")]

    def rows(self, record: dict[str, Any], ctx: RecordContext) -> Rows:
        spec = record.get("eval")
        if not isinstance(spec, dict):
            raise RowError(f"field eval: expected the eval spec object, got {type(spec).__name__}")
        samples = record.get("samples") or []
        if not isinstance(samples, list):
            raise RowError(f"field samples: expected a list, got {type(samples).__name__}")
        eval_id = text_or_json(spec.get("eval_id") or spec.get("run_id") or spec.get("task_id"))
        if eval_id is None:
            raise RowError("field eval.eval_id: missing (also no run_id or task_id to name the tasks by)")
        out = Rows()
        for i, sample in enumerate(samples):
            if not isinstance(sample, dict):
                raise RowError(f"field samples[{i}]: expected a sample object, got {type(sample).__name__}")
            got = self._sample(record, spec, eval_id, sample, f"samples[{i}]", ctx)
            out.tasks += got.tasks
            out.steps += got.steps
            out.messages += got.messages
        return out

    def _sample(self, log, spec, eval_id, sample, where, ctx) -> Rows:
        messages = sample.get("messages") or []
        if not isinstance(messages, list):
            raise RowError(f"field {where}.messages: expected a list, got {type(messages).__name__}")
        task_id = f"inspect:{eval_id}:{text_or_json(sample.get('id'))}:{text_or_json(sample.get('epoch', 1))}"
        transcript = Transcript(task_id, self.name)
        conversation_rows(transcript, messages, f"{where}.messages")
        self._events(transcript, sample.get("events"), where)
        goal = sample.get("input") if isinstance(sample.get("input"), str) else None
        output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
        choices = output.get("choices") if isinstance(output.get("choices"), list) else []
        final = content_text(choices[0].get("message", {}).get("content")) if choices and isinstance(choices[0], dict) \
            and isinstance(choices[0].get("message"), dict) else None
        meta = {"eval_status": log.get("status"), "task": spec.get("task"), "sample_id": sample.get("id"),
                "epoch": sample.get("epoch"), "target": sample.get("target"), "scores": sample.get("scores"),
                "sample_error": sample.get("error"), "eval_error": log.get("error")}
        extra = {k: v for k, v in sample.items() if k not in _SAMPLE_KEYS and k not in meta and k != "scores"}
        meta.update({k: v for k, v in extra.items() if k in ("metadata", "model_usage", "total_time", "working_time")})
        return transcript.rows(goal=goal, final_answer=final or None, model=text_or_json(spec.get("model")),
                               metadata={k: v for k, v in meta.items() if v not in (None, {}, [])})

    def _events(self, transcript: Transcript, events: Any, where: str) -> None:
        if not isinstance(events, list):
            return
        by_call = {s["step_id"]: s for s in transcript.steps if s["step_id"] is not None}
        for j, e in enumerate(events):
            if not isinstance(e, dict) or e.get("event") != "tool":
                continue
            step = by_call.get(text_or_json(e.get("id")))
            if step is None:
                continue
            step["started_at"] = timestamp(e.get("timestamp"), f"{where}.events[{j}].timestamp")
            step["ended_at"] = timestamp(e.get("completed"), f"{where}.events[{j}].completed")
            if e.get("error") and step["status"] != "failed":  # the event knows of an error the messages lost
                transcript.settle(step, step.get("result"), text=text_or_json(e.get("result")), error=e["error"])


def sniff(head: bytes):
    """A framing sniffer: an Inspect `.eval` zip, else None (other zips are named in `unreadable`)."""
    return zip_frames if head[:4] == ZIP_MAGIC else None


def zip_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    data = head + stream.read(MAX_ZIP_BYTES)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, OSError) as exc:
        yield Frame(errors=[(1, "<zip>", f"a zip file that cannot be opened ({exc})")], bytes_read=counter.count)
        return
    header_name = next((n for n in ("header.json", "_journal/start.json", "start.json") if n in names), None)
    samples = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
    if header_name is None:
        shown = ", ".join(names[:8]) or "nothing"
        yield Frame(errors=[(1, "<zip>", "a zip archive that is not an Inspect AI .eval log (it holds "
                                         f"{shown}); unzip it and ingest the JSON files inside")],
                    bytes_read=counter.count)
        return
    try:
        header = json.loads(archive.read(header_name))
        if "results.json" in names and "status" not in header:
            header.update({k: v for k, v in json.loads(archive.read("results.json")).items() if k != "samples"})
    except (ValueError, KeyError, NotImplementedError, zipfile.BadZipFile) as exc:
        yield Frame(errors=[(1, header_name, f"Inspect .eval log: {header_name} cannot be read ({exc})")],
                    bytes_read=counter.count)
        return
    frame = Frame(bytes_read=counter.count)
    base = {k: header.get(k) for k in ("version", "status", "eval", "error") if k in header}
    if not samples:
        frame.lines.append(1)
        frame.raws.append(json.dumps({**base, "samples": []}, ensure_ascii=False))
    for line, name in enumerate(samples, start=1):
        try:
            sample = json.loads(archive.read(name))
        except (ValueError, NotImplementedError, zipfile.BadZipFile) as exc:
            frame.errors.append((line, name, f"Inspect .eval log: {name} cannot be read ({exc})"))
            continue
        frame.lines.append(line)
        frame.raws.append(json.dumps({**base, "samples": [sample]}, ensure_ascii=False))
    yield frame
