-- turn_nearby: rows around a turn that are not its own, each labelled with the turn it
-- belongs to ('(no turn)' when untied): messages of the same conversation from 10 minutes
-- before $around_start to 10 minutes after $around_end, and the user's audit rows from 1
-- minute before to 5 minutes after. $task_id (the turn shown, or NULL for a reply with no
-- turn) and $message_id (the reply shown) are left out; the page drops its own replies.
SELECT 'message' AS what, m.message_id AS id, coalesce(m.task_id, '(no turn)') AS turn, m.role AS kind,
       m.content AS text, m.created_at
FROM messages m
WHERE m.conversation_id = $conversation_id
  AND m.created_at >= CAST($around_start AS TIMESTAMPTZ) - INTERVAL 10 MINUTE
  AND m.created_at <= CAST($around_end AS TIMESTAMPTZ) + INTERVAL 10 MINUTE
  AND ($task_id IS NULL OR m.task_id IS DISTINCT FROM $task_id) AND m.message_id IS DISTINCT FROM $message_id
UNION ALL
SELECT 'audit', a.audit_id, coalesce(a.task_id, '(no turn)'), a.action,
       coalesce(a.result, '') || CASE WHEN a.detail IS NULL THEN '' ELSE ' · ' || a.detail END, a.created_at
FROM audit_logs a
WHERE a.user_id = $user_id
  AND a.created_at >= CAST($around_start AS TIMESTAMPTZ) - INTERVAL 1 MINUTE
  AND a.created_at <= CAST($around_end AS TIMESTAMPTZ) + INTERVAL 5 MINUTE
  AND ($task_id IS NULL OR a.task_id IS DISTINCT FROM $task_id)
ORDER BY created_at NULLS LAST, id
