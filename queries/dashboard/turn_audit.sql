-- turn_audit: the audit rows tied to one turn (audit_logs.task_id). Untied rows of the same
-- user around that time are turn_nearby's, shown apart.
SELECT a.audit_id, a.action, a.result, a.created_at, a.detail, a.task_id
FROM audit_logs a WHERE a.task_id = $task_id
ORDER BY a.created_at NULLS LAST, a.audit_id
