-- search_turns: turns matching the investigator's search, newest first. Every input is a
-- bound value; text is matched as a plain substring (no wildcards), case-insensitively.
-- Findings are counted only for the turns returned (after the LIMIT).
WITH hits AS (
    SELECT t.started_at, t.user_id, t.conversation_id, t.task_id, t.status, t.goal,
           t.final_answer, t.agent_version
    FROM tasks t
    WHERE t.started_at >= $since AND t.started_at < $until
      AND ($user_id IS NULL OR t.user_id = $user_id)
      AND ($conversation_id IS NULL OR t.conversation_id = $conversation_id)
      AND ($task_id IS NULL OR t.task_id = $task_id)
      AND ($text IS NULL
           OR contains(lower(coalesce(t.final_answer, '')), lower($text))
           OR contains(lower(coalesce(t.goal, '')), lower($text))
           OR t.conversation_id IN (
                SELECT m.conversation_id FROM messages m
                WHERE m.created_at >= $since - INTERVAL 1 DAY AND m.created_at < $until + INTERVAL 1 DAY
                  AND contains(lower(coalesce(m.content, '')), lower($text))))
    ORDER BY t.started_at DESC, t.task_id
    LIMIT $limit
), counted AS (
    SELECT task_id, count(*) AS findings FROM findings
    WHERE run_id = $run_id AND task_id IN (SELECT task_id FROM hits)
    GROUP BY task_id
)
SELECT h.*, coalesce(c.findings, 0) AS findings
FROM hits h LEFT JOIN counted c USING (task_id)
ORDER BY h.started_at DESC, h.task_id
