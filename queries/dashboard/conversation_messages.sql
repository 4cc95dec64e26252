-- conversation_messages: every message of one conversation, in order (time, then position in
-- the conversation as a number, then source line), each labelled with the turn it belongs to.
SELECT coalesce(m.task_id, '(no turn)') AS turn, m.role, m.content, m.created_at,
       TRY_CAST(json_extract_string(m.metadata, '$.message_index') AS INTEGER) AS position, m.message_id
FROM messages m
WHERE m.conversation_id = $conversation_id
ORDER BY m.created_at NULLS LAST, position NULLS LAST, m.source_line NULLS LAST, m.message_id
LIMIT $limit
