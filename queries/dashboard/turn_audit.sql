-- turn_audit: audit rows of one turn: tied to the task, or the user's untied rows during it.
WITH t AS (SELECT task_id, user_id, started_at, coalesce(finished_at, started_at) AS ended FROM tasks
           WHERE task_id = $task_id)
SELECT a.audit_id, a.action, a.result, a.created_at, a.detail, a.task_id
FROM audit_logs a WHERE a.task_id = $task_id
UNION
SELECT a.audit_id, a.action, a.result, a.created_at, a.detail, a.task_id
FROM audit_logs a, t
WHERE a.task_id IS NULL AND a.user_id = t.user_id
  AND a.created_at >= t.started_at - INTERVAL 1 MINUTE
  AND a.created_at <= t.ended + INTERVAL 5 MINUTE
ORDER BY created_at NULLS LAST, audit_id
