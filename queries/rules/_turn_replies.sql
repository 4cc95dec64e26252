-- id = "_turn_replies"
-- title = "Turn model: every assistant reply, linked to the task (turn) it answers"
-- description = """
-- One row per reply. A reply with a task_id belongs to that task. A reply
-- without one (chat logs often drop it) belongs to the latest task of the same
-- conversation that started before it and ended at most reply_window_seconds
-- earlier, unless a user message came in between or an earlier reply already
-- answered that task. A task whose answer is stored only on the task
-- (final_answer) gets a reply row of its own. link: task_id | time | final_answer | none.
-- reply_index / prev_reply_index: where the source records message positions
-- (chat transcripts: metadata.message_index), the reply's own position and
-- that of the task's previous reply; a rule can then judge the reply by the
-- steps made since the previous reply. NULL otherwise.
-- (Times are cast to TIMESTAMP, UTC, before date_diff: the same seconds, and
-- far cheaper than calendar arithmetic on TIMESTAMPTZ.)
-- """
WITH replies AS (
    SELECT message_id, conversation_id, user_id, created_at, content, task_id,
           TRY_CAST(json_extract_string(metadata, '$.message_index') AS INTEGER) AS msg_index
    FROM messages
    WHERE role = 'assistant' AND content IS NOT NULL AND regexp_matches(content, '\S')
),
unlinked AS (
    SELECT message_id, conversation_id, user_id, created_at, content FROM replies WHERE task_id IS NULL
),
candidates AS (
    SELECT r.message_id, r.created_at, t.task_id, coalesce(t.finished_at, t.started_at) AS task_end
    FROM unlinked r
    JOIN tasks t ON t.conversation_id = r.conversation_id
    WHERE t.started_at <= r.created_at
      AND date_diff('second', CAST(coalesce(t.finished_at, t.started_at) AS TIMESTAMP), CAST(r.created_at AS TIMESTAMP))
          <= $reply_window_seconds
      AND NOT EXISTS (
          SELECT 1 FROM messages u
          WHERE u.conversation_id = r.conversation_id AND u.role = 'user'
            AND u.created_at > coalesce(t.finished_at, t.started_at) AND u.created_at < r.created_at)
),
latest AS (
    SELECT message_id, created_at, task_id FROM (
        SELECT c.message_id, c.created_at, c.task_id,
               row_number() OVER (PARTITION BY c.message_id ORDER BY c.task_end DESC, c.task_id DESC) AS rn
        FROM candidates c) x
    WHERE rn = 1
),
claimants AS (
    -- every reply that could answer a task that has a time-linked candidate
    SELECT r.message_id, r.task_id, r.created_at FROM replies r
    WHERE r.task_id IS NOT NULL AND r.task_id IN (SELECT task_id FROM latest)
    UNION ALL
    SELECT l.message_id, l.task_id, l.created_at FROM latest l
),
time_links AS (
    -- a time link stands only when that reply is the task's first answer
    SELECT message_id, task_id FROM (
        SELECT c.task_id, c.message_id,
               row_number() OVER (PARTITION BY c.task_id ORDER BY c.created_at NULLS LAST, c.message_id) AS rn
        FROM claimants c) y
    WHERE rn = 1
),
positioned AS (
    SELECT r.message_id, r.task_id, r.msg_index FROM replies r
    WHERE r.task_id IS NOT NULL AND r.msg_index IS NOT NULL
)
SELECT r.message_id AS reply_id, r.conversation_id, r.user_id, r.created_at AS reply_time, r.content AS reply_text,
       r.task_id, 'task_id' AS link, CAST(NULL AS INTEGER) AS reply_index, CAST(NULL AS INTEGER) AS prev_reply_index
FROM replies r
WHERE r.task_id IS NOT NULL AND r.msg_index IS NULL
UNION ALL
SELECT r.message_id, r.conversation_id, r.user_id, r.created_at, r.content, r.task_id, 'task_id', r.msg_index,
       (SELECT max(p.msg_index) FROM positioned p WHERE p.task_id = r.task_id AND p.msg_index < r.msg_index)
FROM replies r
WHERE r.task_id IS NOT NULL AND r.msg_index IS NOT NULL
UNION ALL
SELECT r.message_id, r.conversation_id, r.user_id, r.created_at, r.content, tl.task_id,
       CASE WHEN tl.task_id IS NOT NULL THEN 'time' ELSE 'none' END, CAST(NULL AS INTEGER), CAST(NULL AS INTEGER)
FROM unlinked r
LEFT JOIN time_links tl ON tl.message_id = r.message_id
UNION ALL
SELECT t.task_id || ':final_answer', t.conversation_id, t.user_id, t.finished_at,
       t.final_answer, t.task_id, 'final_answer', CAST(NULL AS INTEGER), CAST(NULL AS INTEGER)
FROM tasks t
WHERE t.final_answer IS NOT NULL AND regexp_matches(t.final_answer, '\S')
  AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.task_id = t.task_id AND m.role = 'assistant')
