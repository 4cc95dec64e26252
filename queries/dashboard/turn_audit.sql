-- turn_audit: audit rows of one turn: tied to the task, or the user's rows during it.
WITH t AS (SELECT * FROM tasks WHERE task_id = $task_id)
SELECT a.audit_id, a.action, a.result, a.created_at, a.detail, a.task_id
FROM audit_logs a, t
WHERE a.task_id = t.task_id
   OR (a.task_id IS NULL AND a.user_id = t.user_id
       AND a.created_at >= t.started_at - INTERVAL 1 MINUTE
       AND a.created_at <= coalesce(t.finished_at, t.started_at) + INTERVAL 5 MINUTE)
ORDER BY a.created_at NULLS LAST, a.audit_id
