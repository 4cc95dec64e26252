"""LangSmith runs: a JSON array or JSON lines of runs (`Client.list_runs`, the REST API, the
Parquet bulk export, which has the same fields), each run one span of a trace.

A run (langsmith `schemas.Run`, the "Run data format") is `{id, name, run_type, start_time,
end_time, inputs, outputs, error, status, parent_run_id, trace_id, dotted_order, session_id,
extra: {metadata}, tags, child_runs, ...}`. run_type `tool` is a tool call, `llm` a model call
(its outputs LangChain `generations` or an OpenAI completion), `chain` and the rest structure.
The runs of one `trace_id` are one task `langsmith:<trace_id>` (see `span_tree`): the root's
inputs give the goal, its outputs the final reply. A tool run failed when its `error` is set,
its `status` is `error`, or its output says so (a ToolMessage with `status: error`, an error
envelope): `vocabulary.failure`. `child_runs` (a run read with its children) are flattened.
`dotted_order` (`<start>Z<id>.<start>Z<id>...`) orders runs that start at the same time.
Inputs and outputs may be JSON text (the Parquet export): they are parsed.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..base import RecordContext, RowError, Rows
from .conversation import parsed_json
from .seed001 import text_or_json, timestamp
from .span_tree import LLM, OTHER, TOOL, Span, SpanTreeReader, required_id, roots_of, trace_rows

_KINDS = {"tool": TOOL, "llm": LLM, "chat_model": LLM, "chat": LLM}
_META_KEYS = ("run_type", "dotted_order", "tags", "status")
_UNPLACED = "\x00unplaced"


def _runs(run: dict[str, Any], where: str, depth: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    yield where, run
    children = run.get("child_runs")
    if isinstance(children, list) and depth < 64:
        for i, child in enumerate(children):
            if not isinstance(child, dict):
                raise RowError(f"field {where}.child_runs[{i}]: expected a run object, got {type(child).__name__}")
            child.setdefault("trace_id", run.get("trace_id"))
            child.setdefault("parent_run_id", run.get("id"))
            yield from _runs(child, f"{where}.child_runs[{i}]", depth + 1)


class LangSmithReader(SpanTreeReader):
    name = "langsmith"
    claims = [("run", "list_contains(k, 'run_type') AND (list_contains(k, 'trace_id') OR "
                      "list_contains(k, 'dotted_order') OR list_contains(k, 'parent_run_id') OR "
                      "list_contains(k, 'child_runs'))")]

    def spans(self, record: dict[str, Any], ctx: RecordContext) -> Iterable[Span]:
        out = []
        for where, run in _runs(record, "run"):
            run_id = text_or_json(run.get("id"))
            trace_id = run.get("trace_id") or (run_id if run.get("parent_run_id") is None else None)
            if trace_id is None and run.get("parent_run_id") is not None:
                trace_id = _UNPLACED  # older runs name only their parent: placed by `linked`
            trace_id = required_id(trace_id, f"{where}.trace_id")
            kind = _KINDS.get(str(run.get("run_type") or "").lower(), OTHER)
            extra = parsed_json(run.get("extra"))
            extra = extra if isinstance(extra, dict) else {}
            meta = {k: run[k] for k in _META_KEYS if run.get(k) not in (None, "", [])}
            invocation = extra.get("invocation_params") if isinstance(extra.get("invocation_params"), dict) else {}
            metadata = parsed_json(extra.get("metadata"))
            metadata = metadata if isinstance(metadata, dict) else {}
            model = invocation.get("model") or invocation.get("model_name") or metadata.get("ls_model_name")
            out.append(Span(
                trace_id=trace_id, span_id=run_id, parent_id=text_or_json(run.get("parent_run_id")), kind=kind,
                name=text_or_json(run.get("name")),
                started_at=timestamp(run.get("start_time"), f"{where}.start_time"),
                ended_at=timestamp(run.get("end_time"), f"{where}.end_time"),
                input=parsed_json(run.get("inputs")), output=parsed_json(run.get("outputs")),
                error=run.get("error"), status=run.get("status"), model=text_or_json(model),
                meta={**meta, **({"metadata": metadata} if metadata and kind == OTHER else {})}))
        return out

    def linked(self, spans: list[Span], errors: list[tuple[int, str, str]], raws: dict[int, str]) -> list[Span]:
        """Runs without `trace_id` (exports from before LangSmith wrote it) take their root's, found
        through `parent_run_id` among the runs of the frame."""
        by_id = {s.span_id: s for s in spans if s.span_id is not None}
        out = []
        for s in spans:
            node, seen = s, set()
            while node.trace_id == _UNPLACED and node.parent_id in by_id and node.parent_id not in seen:
                seen.add(node.parent_id)
                node = by_id[node.parent_id]
            if node.trace_id == _UNPLACED:
                errors.append((s.line, raws.get(s.line, ""), f"field run.trace_id: missing, and the run's parent "
                                                              f"{s.parent_id} is not in the same file part to take it from"))
                continue
            s.trace_id = node.trace_id
            out.append(s)
        return out

    def trace(self, trace_id: str, spans: list[Span], ctx: RecordContext) -> Rows:
        # Runs that start together are ordered by dotted_order (it sorts as the runs nest).
        spans.sort(key=lambda s: str(s.meta.get("dotted_order") or ""))
        roots = roots_of(spans)
        root = next((s for s in roots if s.span_id == trace_id), roots[0] if roots else None)
        metadata = root.meta.get("metadata") if root is not None else None
        metadata = metadata if isinstance(metadata, dict) else {}
        conversation = metadata.get("thread_id") or metadata.get("session_id") or metadata.get("conversation_id")
        return trace_rows(self.name, trace_id, spans, root=root, conversation_id=text_or_json(conversation),
                          user_id=text_or_json(metadata.get("user_id")),
                          metadata={"trace_name": root.name if root else None,
                                    "tags": root.meta.get("tags") if root else None,
                                    "metadata": metadata})
