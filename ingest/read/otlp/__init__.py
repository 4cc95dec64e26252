"""OpenTelemetry in: OTLP traces (files and the live receiver) to warehouse rows.

Two stages, so that spans may arrive in any order and in any number of pieces:

1. decoding (`spans`, `proto`): an OTLP request, JSON or protobuf, becomes rows
   of the raw `otel_spans` table (one row per span, attributes flattened to a
   JSON object). Pure: bytes in, Arrow out.
2. deriving (`rebuild`, `rebuild_sql`; the rules in readable Python in
   `mapping`): after a file (or a spooled batch of requests) is loaded, every
   trace it touched is rebuilt from ALL its stored spans into tasks, steps
   and messages, in set-based SQL. A turn therefore looks the same whether
   its spans came together, split across files, or out of order.

The receiver (`receiver`, `spool`) persists each acknowledged request before
answering and drains the spool through the ordinary loader.
"""
