-- id = "audit_mismatch"
-- title = "The audit log disagrees with the step it records"
-- severity = "block"
-- description = """
-- An audit row says SUCCESS for a step that is not success AND verified (the
-- "self-praise" audit), or FAIL for a step that is. Audit rows link to steps
-- by task_id when the row has one, else to the same user's task with a step
-- of that tool nearest in time (within window_seconds); within a task the
-- k-th audit row of a tool records the k-th step of that tool.
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
cand AS (
    -- the task each audit row belongs to: its task_id, else the same user's task with a step
    -- of that tool nearest in time (within window_seconds)
    SELECT a.audit_id, a.result, a.created_at, a.action, a.task_id AS link_task
    FROM a WHERE a.task_id IS NOT NULL
    UNION ALL
    SELECT audit_id, result, created_at, action, link_task FROM (
        SELECT a.audit_id, a.result, a.created_at, a.action, s.task_id AS link_task,
               row_number() OVER (PARTITION BY a.audit_id
                                  ORDER BY abs(date_diff('second', s.t_at, a.created_at)), s.task_id, s.seq) AS rn
        FROM a JOIN s ON s.user_id = a.user_id AND s.tool = a.action
        WHERE a.task_id IS NULL AND abs(date_diff('second', s.t_at, a.created_at)) <= $window_seconds) x
    WHERE rn = 1
),
ranked_a AS (
    -- the k-th audit row of a tool in a task records the k-th step of that tool (one row per execution)
    SELECT c.*, row_number() OVER (PARTITION BY c.link_task, c.action
                                   ORDER BY c.created_at, TRY_CAST(c.audit_id AS BIGINT) NULLS LAST, c.audit_id) AS k
    FROM cand c
),
ranked_s AS (
    SELECT s.*, row_number() OVER (PARTITION BY s.task_id, s.tool ORDER BY s.seq) AS k
    FROM s WHERE s.task_id IN (SELECT link_task FROM cand)
),
pairs AS (
    SELECT ra.audit_id, ra.result, ra.created_at, rs.task_id, rs.seq, rs.tool, rs.status, rs.verified,
           rs.conversation_id, rs.user_id, 1 AS rn
    FROM ranked_a ra JOIN ranked_s rs ON rs.task_id = ra.link_task AND rs.tool = ra.action AND rs.k = ra.k
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
