-- id = "sentinel_ignored"
-- title = "The reply went out although the last verify_result said not ready"
-- severity = "review"
-- uses = ["_turn_replies"]
-- description = """
-- The last verify_result of the turn did not pass (is_ready false, or missing
-- items / errors listed) and the agent answered the user anyway instead of
-- fixing the gaps and verifying again.
-- """
-- message = "answered after verify_result step {seq} said not ready (is_ready={is_ready})"
WITH last_verify AS (
    SELECT task_id, seq, t_at, args FROM (
        SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS t_at, s.args,
               row_number() OVER (PARTITION BY s.task_id ORDER BY s.seq DESC) AS rn
        FROM steps s
        WHERE s.tool = 'verify_result' OR s.kind = 'verify') x
    WHERE rn = 1
),
v AS (
    -- the arguments are read only from each task's last verify_result
    SELECT task_id, seq, t_at,
           lower(coalesce(json_extract_string(args, '$.is_ready'), '')) AS is_ready,
           json_extract_string(args, '$.missing_items') AS missing_items,
           json_extract_string(args, '$.errors_found') AS errors_found,
           coalesce(json_extract_string(args, '$.missing_items[0]'), '') AS first_missing,
           coalesce(json_extract_string(args, '$.errors_found[0]'), '') AS first_error
    FROM last_verify
),
failed_verify AS (
    SELECT * FROM v WHERE NOT (is_ready IN ('true', '1') AND first_missing = '' AND first_error = '')
),
answered AS (
    SELECT task_id, max(reply_time) AS reply_time, count(*) AS replies
    FROM turn_replies WHERE task_id IN (SELECT task_id FROM failed_verify) GROUP BY task_id
)
SELECT v.task_id, v.seq, coalesce(a.reply_time, v.t_at) AS event_time, v.is_ready, v.missing_items, v.errors_found
FROM failed_verify v JOIN answered a ON a.task_id = v.task_id
