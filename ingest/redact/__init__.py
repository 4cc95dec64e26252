"""Redaction at ingest: personal data and secrets are replaced before anything is written.

The loader hands every decoded batch through `redactor.Redactor` before its upsert (via
`ingest/load/frame_loop.py`); the warehouse never holds the originals. One concept a module:

- `config`: the `[redaction]` section of trace-audit.toml, typed, and the shipped defaults
  (`redaction_rules.toml`) it extends;
- `prefilter_syntax`, `escape_tolerant`: what a prefilter may be written in, and its rewrite
  that reads raw JSON text; `checks`: Luhn, id check digits, canonical forms;
- `rules`: defaults and config compiled once; `columns`: which columns redaction may change;
- `key`: the HMAC key; `text`: tokens and value patterns in one text; `json_text`: field names
  and patterns at any depth of a JSON document; `redactor`: the same over Arrow tables;
- `report`: what was replaced, per column and rule.

docs/redaction.md says what is replaced and what it costs.
"""
