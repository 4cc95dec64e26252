-- reply_lookup: one reply by its message id (or a final answer's '<task>:final_answer' id),
-- with the turn it answers (its own task, else the task the rules linked it to) and the
-- said_but_not_done kind of that reply in the chosen run (NULL when no false claim).
WITH m AS (
    SELECT message_id, conversation_id, user_id, content, created_at, task_id
    FROM messages WHERE message_id = $message_id
), f AS (
    SELECT task_id, conversation_id, user_id, event_time, seq, json_extract_string(evidence, '$.kind') AS kind,
           json_extract_string(evidence, '$.reply') AS reply
    FROM findings
    WHERE run_id = $run_id AND rule_id = 'said_but_not_done' AND json_extract_string(evidence, '$.message_id') = $message_id
    ORDER BY task_id NULLS LAST
    LIMIT 1
)
SELECT $message_id AS message_id, coalesce(m.conversation_id, f.conversation_id) AS conversation_id,
       coalesce(m.user_id, f.user_id) AS user_id, coalesce(m.content, f.reply) AS content,
       coalesce(m.created_at, f.event_time) AS created_at, coalesce(m.task_id, f.task_id) AS task_id,
       f.kind AS reply_kind, f.seq AS finding_seq
FROM (SELECT 1 AS one) o
LEFT JOIN m ON TRUE
LEFT JOIN f ON TRUE
WHERE m.message_id IS NOT NULL OR f.kind IS NOT NULL
