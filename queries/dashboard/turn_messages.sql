-- turn_messages: one turn's own messages: those tied to the task, and the replies the rules
-- linked to it (said_but_not_done evidence names the reply). Messages of other turns of the
-- conversation are turn_nearby's. Ordered by time, then by their position in the
-- conversation (metadata.message_index, as a number), then by their line in the source,
-- so an undated transcript reads in conversation order.
SELECT m.message_id, m.role, m.content, m.created_at, m.task_id,
       TRY_CAST(json_extract_string(m.metadata, '$.message_index') AS INTEGER) AS position
FROM messages m
WHERE m.task_id = $task_id
   OR m.message_id IN (SELECT json_extract_string(f.evidence, '$.message_id') FROM findings f
                       WHERE f.run_id = $run_id AND f.task_id = $task_id AND f.rule_id = 'said_but_not_done')
ORDER BY m.created_at NULLS LAST, position NULLS LAST, m.source_line NULLS LAST, m.message_id
