-- turn_messages: the conversation around one turn: messages tied to the task, or in its
-- conversation from 10 minutes before it started to 10 minutes after it finished.
WITH t AS (SELECT * FROM tasks WHERE task_id = $task_id)
SELECT m.message_id, m.role, m.content, m.created_at, m.task_id
FROM messages m, t
WHERE m.task_id = t.task_id
   OR (m.conversation_id = t.conversation_id
       AND m.created_at >= t.started_at - INTERVAL 10 MINUTE
       AND m.created_at <= coalesce(t.finished_at, t.started_at) + INTERVAL 10 MINUTE)
ORDER BY m.created_at NULLS LAST, m.message_id
