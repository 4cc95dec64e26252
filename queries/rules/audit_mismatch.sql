-- id = "audit_mismatch"
-- title = "The audit log disagrees with the step it records"
-- severity = "block"
-- description = """
-- An audit row says SUCCESS for a step that is not success AND verified (the
-- "self-praise" audit), or FAIL for a step that is. Audit rows link to steps
-- by task_id and action = tool when the row has a task_id, else by user,
-- action = tool and the nearest step within window_seconds.
-- """
-- message = "audit says {audit_result} for step {seq} {tool}, which is {step_state}"
-- [params]
-- window_seconds = 60
WITH a AS (
    SELECT audit_id, user_id, task_id, action, upper(trim(result)) AS result, created_at
    FROM audit_logs
    WHERE upper(trim(result)) IN ('SUCCESS', 'FAIL', 'FAILED', 'FAILURE')
),
s AS (
    SELECT s.task_id, s.seq, s.tool, s.status, s.verified, coalesce(s.ended_at, s.started_at) AS t_at,
           t.user_id, t.conversation_id
    FROM steps s JOIN tasks t ON t.task_id = s.task_id
),
linked AS (
    SELECT a.audit_id, a.result, a.created_at, s.task_id, s.seq, s.tool, s.status, s.verified,
           s.conversation_id, s.user_id, s.t_at
    FROM a JOIN s ON s.task_id = a.task_id AND s.tool = a.action
    WHERE a.task_id IS NOT NULL
    UNION ALL
    SELECT a.audit_id, a.result, a.created_at, s.task_id, s.seq, s.tool, s.status, s.verified,
           s.conversation_id, s.user_id, s.t_at
    FROM a JOIN s ON s.user_id = a.user_id AND s.tool = a.action
    WHERE a.task_id IS NULL AND abs(date_diff('second', s.t_at, a.created_at)) <= $window_seconds
),
pairs AS (
    SELECT l.*,
           row_number() OVER (PARTITION BY l.audit_id
                              ORDER BY abs(coalesce(date_diff('second', l.t_at, l.created_at), 0)), l.task_id, l.seq) AS rn
    FROM linked l
)
SELECT task_id, conversation_id, user_id, seq, created_at AS event_time, tool,
       result AS audit_result, audit_id,
       CASE WHEN status = 'success' AND verified = TRUE THEN 'success and verified'
            ELSE 'status ' || coalesce(status, 'unknown') || ', verified ' || coalesce(CAST(verified AS VARCHAR), 'null')
       END AS step_state
FROM pairs
WHERE rn = 1
  AND ((result = 'SUCCESS' AND NOT (status = 'success' AND coalesce(verified, FALSE) = TRUE))
    OR (result <> 'SUCCESS' AND status = 'success' AND verified = TRUE))
