-- id = "sentinel_ignored"
-- title = "The reply went out although the last verify_result said not ready"
-- severity = "review"
-- description = """
-- The last verify_result of the turn did not pass (is_ready false, or missing
-- items / errors listed) and the agent answered the user anyway instead of
-- fixing the gaps and verifying again.
-- """
-- message = "answered after verify_result step {seq} said not ready (is_ready={is_ready})"
WITH v AS (
    SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS t_at,
           lower(coalesce(json_extract_string(s.args, '$.is_ready'), '')) AS is_ready,
           json_extract_string(s.args, '$.missing_items') AS missing_items,
           json_extract_string(s.args, '$.errors_found') AS errors_found,
           coalesce(json_extract_string(s.args, '$.missing_items[0]'), '') AS first_missing,
           coalesce(json_extract_string(s.args, '$.errors_found[0]'), '') AS first_error,
           row_number() OVER (PARTITION BY s.task_id ORDER BY s.seq DESC) AS rn
    FROM steps s
    WHERE s.tool = 'verify_result' OR s.kind = 'verify'
),
answered AS (
    SELECT task_id, max(reply_time) AS reply_time, count(*) AS replies
    FROM turn_replies WHERE task_id IS NOT NULL GROUP BY task_id
)
SELECT v.task_id, v.seq, coalesce(a.reply_time, v.t_at) AS event_time, v.is_ready, v.missing_items, v.errors_found
FROM v JOIN answered a ON a.task_id = v.task_id
WHERE v.rn = 1
  AND NOT (v.is_ready IN ('true', '1') AND v.first_missing = '' AND v.first_error = '')
