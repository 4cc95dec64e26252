-- id = "_turn_replies"
-- title = "Turn model: every assistant reply, linked to the task (turn) it answers"
-- description = """
-- One row per reply. A reply with a task_id belongs to that task. A reply
-- without one (chat logs often drop it) belongs to the latest task of the same
-- conversation that started before it and ended at most reply_window_seconds
-- earlier, unless a user message came in between or an earlier reply already
-- answered that task. A task whose answer is stored only on the task
-- (final_answer) gets a reply row of its own. link: task_id | time | final_answer | none.
-- """
WITH replies AS (
    SELECT message_id, conversation_id, user_id, created_at, content, task_id
    FROM messages
    WHERE role = 'assistant' AND content IS NOT NULL AND length(trim(content)) > 0
),
candidates AS (
    SELECT r.message_id, t.task_id, coalesce(t.finished_at, t.started_at) AS task_end
    FROM replies r
    JOIN tasks t ON t.conversation_id = r.conversation_id
    WHERE r.task_id IS NULL
      AND t.started_at <= r.created_at
      AND date_diff('second', coalesce(t.finished_at, t.started_at), r.created_at) <= $reply_window_seconds
      AND NOT EXISTS (
          SELECT 1 FROM messages u
          WHERE u.conversation_id = r.conversation_id AND u.role = 'user'
            AND u.created_at > coalesce(t.finished_at, t.started_at) AND u.created_at < r.created_at)
),
latest AS (
    SELECT message_id, task_id FROM (
        SELECT c.message_id, c.task_id,
               row_number() OVER (PARTITION BY c.message_id ORDER BY c.task_end DESC, c.task_id DESC) AS rn
        FROM candidates c) x
    WHERE rn = 1
),
claimants AS (
    -- every reply that could answer a task: explicit links and time links
    SELECT r.message_id, r.task_id, r.created_at, 0 AS by_time FROM replies r WHERE r.task_id IS NOT NULL
    UNION ALL
    SELECT l.message_id, l.task_id, r.created_at, 1 AS by_time FROM latest l JOIN replies r ON r.message_id = l.message_id
),
first_answer AS (
    SELECT task_id, message_id FROM (
        SELECT c.task_id, c.message_id,
               row_number() OVER (PARTITION BY c.task_id ORDER BY c.created_at NULLS LAST, c.message_id) AS rn
        FROM claimants c) y
    WHERE rn = 1
),
time_links AS (
    SELECT l.message_id, l.task_id
    FROM latest l JOIN first_answer f ON f.task_id = l.task_id AND f.message_id = l.message_id
)
SELECT r.message_id AS reply_id, r.conversation_id, r.user_id, r.created_at AS reply_time, r.content AS reply_text,
       coalesce(r.task_id, tl.task_id) AS task_id,
       CASE WHEN r.task_id IS NOT NULL THEN 'task_id' WHEN tl.task_id IS NOT NULL THEN 'time' ELSE 'none' END AS link
FROM replies r
LEFT JOIN time_links tl ON tl.message_id = r.message_id
UNION ALL
SELECT t.task_id || ':final_answer' AS reply_id, t.conversation_id, t.user_id, t.finished_at AS reply_time,
       t.final_answer AS reply_text, t.task_id, 'final_answer' AS link
FROM tasks t
WHERE t.final_answer IS NOT NULL AND length(trim(t.final_answer)) > 0
  AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.task_id = t.task_id AND m.role = 'assistant')
