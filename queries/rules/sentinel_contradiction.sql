-- id = "sentinel_contradiction"
-- title = "verify_result says ready while listing missing items or errors"
-- severity = "block"
-- description = """
-- The sentinel passes only if is_ready is true AND missing_items and
-- errors_found are both empty. is_ready = true with non-empty lists is a
-- contradiction the agent loop must not accept.
-- """
-- message = "verify_result step {seq} says is_ready=true but lists missing: {missing_items} / errors: {errors_found}"
SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS event_time, s.tool,
       json_extract_string(s.args, '$.missing_items') AS missing_items,
       json_extract_string(s.args, '$.errors_found') AS errors_found
FROM steps s
WHERE (s.tool = 'verify_result' OR s.kind = 'verify')
  AND lower(coalesce(json_extract_string(s.args, '$.is_ready'), '')) IN ('true', '1')
  AND (coalesce(json_extract_string(s.args, '$.missing_items[0]'), '') <> ''
       OR coalesce(json_extract_string(s.args, '$.errors_found[0]'), '') <> '')
