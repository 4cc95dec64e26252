"""The OTLP derivation's task ids: a turn's trace-derived id or the `trace_audit.task_id` it
claims, decided over the touched traces and the stored turns whose ids they could collide with;
and the delete of the rows being replaced. Run by `otlp_rebuild.py` in the loader's transaction."""

from __future__ import annotations

from .otlp_attr_sql import meta


# ---- task ids ------------------------------------------------------------------------
# A turn's id is its trace-derived id (`otlp_task.task_id`, called turn_id from here on) or
# the `trace_audit.task_id` it claims (mapping.assign_task_ids). Every stored OTLP task
# names its trace in metadata.trace_id, and a turn that claimed an id keeps the claim in
# metadata.claimed_task_id (whether it got the id or not).

DERIVED_SHAPE = "'^[0-9a-f]{32}(:|$)'"

# The stored rows of the touched traces (to be replaced), and of other traces whose turn
# holds an id that starts with a touched trace's id (a claim made before that trace came).
OLD = """
CREATE OR REPLACE TEMP TABLE otlp_old AS
SELECT task_id, metadata->>'trace_id' AS trace_id, metadata->>'claimed_task_id' AS claim
FROM tasks
WHERE source = 'otlp' AND (metadata->>'trace_id' IN (SELECT trace_id FROM otlp_touched)
                           OR split_part(task_id, ':', 1) IN (SELECT trace_id FROM otlp_touched))
"""

CLAIMS_IN_PLAY = """
SELECT (SELECT count(claim) FROM otlp_task) + (SELECT count(claim) FROM otlp_old)
       + (SELECT count(*) FROM otlp_old WHERE trace_id NOT IN (SELECT trace_id FROM otlp_touched))
"""

# Untouched traces whose turns claim, hold or held an id that a touched turn claims or
# claimed (and so on, transitively), or hold an id named after a touched trace: who gets
# the id may change, so they are rebuilt too.
CLAIM_CLOSURE = """
WITH RECURSIVE stored AS (
  SELECT metadata->>'trace_id' AS trace_id, metadata->>'claimed_task_id' AS claim FROM tasks
  WHERE source = 'otlp' AND contains(CAST(metadata AS VARCHAR), '"claimed_task_id"')
), c(trace_id) AS (
  SELECT trace_id FROM stored WHERE claim IN (SELECT claim FROM otlp_task UNION ALL SELECT claim FROM otlp_old)
  UNION
  SELECT trace_id FROM otlp_old
  UNION
  SELECT s2.trace_id FROM c JOIN stored s1 ON s1.trace_id = c.trace_id JOIN stored s2 ON s2.claim = s1.claim
)
SELECT DISTINCT trace_id FROM c WHERE trace_id IS NOT NULL AND trace_id NOT IN (SELECT trace_id FROM otlp_touched)
"""

# Stored traces named by a claim shaped like a trace-derived id (only run when there is one).
SHAPED_CLAIMS = f"SELECT count(*) FROM otlp_task WHERE regexp_matches(claim, {DERIVED_SHAPE})"
NAMED_TRACES = f"""
CREATE OR REPLACE TEMP TABLE otlp_named AS
SELECT DISTINCT trace_id FROM otel_spans
WHERE trace_id IN (SELECT split_part(claim, ':', 1) FROM otlp_task WHERE regexp_matches(claim, {DERIVED_SHAPE}))
"""
NO_NAMED_TRACES = "CREATE OR REPLACE TEMP TABLE otlp_named (trace_id VARCHAR)"

# Each turn's id: its claim when no check refuses it and it is the earliest claimant
# (start, then trace id, then task span id), else its turn id; the claim, and why it was
# refused, in metadata.
IDS = f"""
CREATE OR REPLACE TEMP TABLE otlp_ids AS
WITH held AS (
  SELECT task_id AS claim, min(source) AS source FROM tasks
  WHERE source <> 'otlp' AND task_id IN (SELECT claim FROM otlp_task) GROUP BY ALL
), c AS (
  SELECT t.task_id AS turn_id, t.trace_id, t.turn_key, t.started_at, t.claim,
    CASE WHEN t.claim IS NULL THEN NULL
         WHEN regexp_matches(t.claim, {DERIVED_SHAPE}) AND t.claim <> t.task_id
              AND split_part(t.claim, ':', 1) IN (SELECT trace_id FROM otlp_named)
           THEN 'names another turn of a stored trace'
         WHEN held.source IS NOT NULL THEN 'held by a ' || held.source || ' task' END AS refused
  FROM otlp_task t LEFT JOIN held USING (claim)
), r AS (
  SELECT turn_id, row_number() OVER w AS rank, first_value(trace_id) OVER w AS first_trace,
    first_value(turn_key) OVER w AS first_key
  FROM c WHERE claim IS NOT NULL AND refused IS NULL
  WINDOW w AS (PARTITION BY claim ORDER BY started_at NULLS LAST, trace_id, turn_key)
), d AS (
  SELECT c.turn_id, c.claim, r.rank,
    coalesce(c.refused, CASE WHEN r.rank > 1 THEN 'claimed by an earlier turn (trace ' || r.first_trace
                                                   || ', task span ' || r.first_key || ')' END) AS clash
  FROM c LEFT JOIN r USING (turn_id)
)
SELECT turn_id, CASE WHEN rank = 1 THEN claim ELSE turn_id END AS task_id,
  CASE WHEN clash IS NOT NULL THEN json_object('claimed_task_id', claim, 'task_id_clash', clash)
       WHEN claim IS NOT NULL THEN json_object('claimed_task_id', claim)
       ELSE '{{}}' END AS meta
FROM d
"""

_OLD_IDS = "(SELECT task_id FROM otlp_old WHERE trace_id IN (SELECT trace_id FROM otlp_touched))"
DELETE_OLD = [
    f"DELETE FROM steps WHERE task_id IN {_OLD_IDS}",
    f"DELETE FROM messages WHERE source = 'otlp' AND task_id IN {_OLD_IDS}",
    f"DELETE FROM tasks WHERE source = 'otlp' AND task_id IN {_OLD_IDS}",
]
