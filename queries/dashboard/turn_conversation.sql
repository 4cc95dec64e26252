-- turn_conversation: the conversation around one turn (what `explain` prints): messages tied
-- to the task, or in its conversation from 10 minutes before it started to 10 minutes after
-- it finished. Ordered by time, then by position in the conversation (a number), then by
-- source line. (The dashboard shows a turn's own messages, turn_messages.sql, and the rest
-- apart, turn_nearby.sql.)
-- (Two branches rather than one OR, so the time window can skip most of the table.)
WITH t AS (SELECT task_id, conversation_id, started_at, coalesce(finished_at, started_at) AS ended FROM tasks
           WHERE task_id = $task_id)
SELECT m.message_id, m.role, m.content, m.created_at, m.task_id,
       TRY_CAST(json_extract_string(m.metadata, '$.message_index') AS INTEGER) AS position, m.source_line
FROM messages m WHERE m.task_id = $task_id
UNION
SELECT m.message_id, m.role, m.content, m.created_at, m.task_id,
       TRY_CAST(json_extract_string(m.metadata, '$.message_index') AS INTEGER) AS position, m.source_line
FROM messages m, t
WHERE m.conversation_id = t.conversation_id
  AND m.created_at >= t.started_at - INTERVAL 10 MINUTE
  AND m.created_at <= t.ended + INTERVAL 10 MINUTE
ORDER BY created_at NULLS LAST, position NULLS LAST, source_line NULLS LAST, message_id
