"""The canonical record contract is stated once: the published JSON Schema, the canonical
reader's field mappings and the warehouse tables agree (issue 13: the schema lacked `source`)."""

from __future__ import annotations

import json

import pytest

from trace_audit.cli.main import main
from trace_audit.ingest.read.formats.canonical import CanonicalReader
from trace_audit.ingest.read.records import RECORD_MODELS
from trace_audit.queries.warehouse.tables import OFFSET_COLUMN
from trace_audit.queries.warehouse.types import columns

# Columns the loader writes itself: where a row was read from, and when.
PROVENANCE = {"source_file", "source_line", "ingested_at"}
# Columns the reader derives from a field's text, not fields of their own: the offset a time was
# written with (created_at "…+08:00" gives utc_offset_min 480).
DERIVED = {OFFSET_COLUMN}


def published(capsys) -> dict:
    assert main(["schema"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", sorted(RECORD_MODELS))
def test_the_schema_publishes_every_field_the_reader_reads(kind, capsys):
    mapping = CanonicalReader.mappings[kind]
    schema = published(capsys)["$defs"][RECORD_MODELS[kind].__name__]
    read = {f.column for f in mapping.fields}
    assert set(schema["properties"]) - {"record"} == read
    assert set(schema.get("required", [])) == {f.column for f in mapping.fields if f.required}


@pytest.mark.parametrize("kind", sorted(RECORD_MODELS))
def test_the_contract_covers_its_warehouse_table(kind):
    mapping = CanonicalReader.mappings[kind]
    read = {f.column for f in mapping.fields}
    assert read == set(columns(mapping.table)) - PROVENANCE - DERIVED


def test_source_is_in_the_published_schema(capsys):
    defs = published(capsys)["$defs"]
    assert all("source" in defs[name]["properties"] for name in ("TaskRecord", "MessageRecord", "AuditRecord"))
