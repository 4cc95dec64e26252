-- id = "audit_mismatch"
-- title = "The audit log disagrees with the step it records"
-- severity = "block"
-- description = """
-- An audit row says SUCCESS for a step that is not success AND verified (the
-- "self-praise" audit), or FAIL for a step that is. Audit rows link to steps
-- by task_id when the row has one, else to the same user's task with a step
-- of that tool nearest in time (within window_seconds); within a task the
-- k-th audit row of a tool records the k-th step of that tool.
-- The time link is an equality join on (user, tool, time bucket of
-- window_seconds) against the audit's bucket and its two neighbours, then
-- the exact window test: every pair within the window shares one of the
-- three buckets, and no user's whole history is compared with every row.
-- Times are cast to TIMESTAMP (UTC) before date_diff: the same seconds, and
-- far cheaper than calendar arithmetic on TIMESTAMPTZ.
-- """
-- message = "audit says {audit_result} for step {seq} {tool}, which is {step_state}"
-- [params]
-- window_seconds = 60
WITH a AS (
    SELECT l.audit_id, l.user_id, l.task_id, l.action, upper(trim(l.result)) AS result, l.created_at,
           CAST(l.created_at AS TIMESTAMP) AS at_utc
    FROM audit_logs l
    WHERE upper(trim(l.result)) IN ('SUCCESS', 'FAIL', 'FAILED', 'FAILURE')
),
a_free AS (
    SELECT audit_id, user_id, action, result, created_at, at_utc,
           floor(date_diff('second', CAST($now AS TIMESTAMP), at_utc) / greatest($window_seconds, 1)) AS bucket
    FROM a WHERE task_id IS NULL AND user_id IS NOT NULL AND created_at IS NOT NULL
),
a_probe AS (
    SELECT audit_id, user_id, action, result, created_at, at_utc, bucket - 1 AS bucket FROM a_free
    UNION ALL
    SELECT audit_id, user_id, action, result, created_at, at_utc, bucket FROM a_free
    UNION ALL
    SELECT audit_id, user_id, action, result, created_at, at_utc, bucket + 1 AS bucket FROM a_free
),
s_timed AS (
    -- steps of the tools that task-less audit rows name, with their task's user and time bucket
    SELECT task_id, seq, tool, user_id, t_utc,
           floor(date_diff('second', CAST($now AS TIMESTAMP), t_utc) / greatest($window_seconds, 1)) AS bucket
    FROM (
        SELECT s.task_id, s.seq, s.tool, t.user_id, CAST(coalesce(s.ended_at, s.started_at) AS TIMESTAMP) AS t_utc
        FROM steps s JOIN tasks t ON t.task_id = s.task_id
        WHERE s.tool IN (SELECT action FROM a_free) AND coalesce(s.ended_at, s.started_at) IS NOT NULL) x
),
cand AS (
    -- the task each audit row belongs to: its task_id, else the same user's task with a step
    -- of that tool nearest in time (within window_seconds)
    SELECT a.audit_id, a.result, a.created_at, a.action, a.task_id AS link_task
    FROM a WHERE a.task_id IS NOT NULL
    UNION ALL
    SELECT audit_id, result, created_at, action, link_task FROM (
        SELECT g.*, row_number() OVER (PARTITION BY g.audit_id ORDER BY g.gap, g.link_task, g.seq) AS rn
        FROM (
            SELECT p.audit_id, p.result, p.created_at, p.action, s.task_id AS link_task, s.seq,
                   abs(date_diff('second', s.t_utc, p.at_utc)) AS gap
            FROM a_probe p
            JOIN s_timed s ON s.user_id = p.user_id AND s.tool = p.action AND s.bucket = p.bucket) g
        WHERE g.gap <= $window_seconds) x
    WHERE rn = 1
),
ranked_a AS (
    -- the k-th audit row of a tool in a task records the k-th step of that tool (one row per execution)
    SELECT c.*, row_number() OVER (PARTITION BY c.link_task, c.action
                                   ORDER BY c.created_at, TRY_CAST(c.audit_id AS BIGINT) NULLS LAST, c.audit_id) AS k
    FROM cand c
),
ranked_s AS (
    SELECT s.task_id, s.seq, s.tool, s.status, s.verified,
           row_number() OVER (PARTITION BY s.task_id, s.tool ORDER BY s.seq) AS k
    FROM steps s
    WHERE s.task_id IN (SELECT link_task FROM cand) AND s.tool IN (SELECT action FROM a)
)
SELECT rs.task_id, rs.seq, ra.created_at AS event_time, rs.tool,
       ra.result AS audit_result, ra.audit_id,
       CASE WHEN rs.status = 'success' AND rs.verified = TRUE THEN 'success and verified'
            ELSE 'status ' || coalesce(rs.status, 'unknown') || ', verified ' || coalesce(CAST(rs.verified AS VARCHAR), 'null')
       END AS step_state
FROM ranked_a ra
JOIN ranked_s rs ON rs.task_id = ra.link_task AND rs.tool = ra.action AND rs.k = ra.k
WHERE (ra.result = 'SUCCESS' AND NOT (rs.status = 'success' AND coalesce(rs.verified, FALSE) = TRUE))
   OR (ra.result <> 'SUCCESS' AND rs.status = 'success' AND rs.verified = TRUE)
