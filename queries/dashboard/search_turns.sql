-- search_turns: turns matching the investigator's search, newest first, then the turns
-- without a start time in the order of their source (file, line); then the replies that
-- claimed success with no turn at all (said_but_not_done findings without a task), which
-- have no task row to match but must be findable by user, conversation, text and time.
-- Every input is a bound value; text is matched as a plain substring (no wildcards),
-- case-insensitively, against the turn's own text only: its goal, its final answer and
-- the messages tied to it (not the rest of its conversation). $tod_minute (minute of the
-- local day, or NULL) keeps turns that started within 30 minutes of that time of day.
-- Findings are counted only for the turns returned (after the LIMIT).
WITH turns AS (
    SELECT t.started_at, t.user_id, t.conversation_id, t.task_id, CAST(NULL AS VARCHAR) AS reply_id,
           t.status, t.goal, t.final_answer, t.agent_version, t.source_file, t.source_line
    FROM tasks t
    WHERE (t.started_at IS NULL OR (t.started_at >= $since AND t.started_at < $until))
      AND ($user_id IS NULL OR t.user_id = $user_id)
      AND ($conversation_id IS NULL OR t.conversation_id = $conversation_id)
      AND ($task_id IS NULL OR t.task_id = $task_id)
      AND ($tod_minute IS NULL OR (t.started_at IS NOT NULL AND local_minute_distance(t.started_at, $tz_offset_s, $tod_minute) <= 30))
      AND ($text IS NULL
           OR contains(lower(coalesce(t.final_answer, '')), lower($text))
           OR contains(lower(coalesce(t.goal, '')), lower($text))
           OR t.task_id IN (SELECT m.task_id FROM messages m
                            WHERE m.task_id IS NOT NULL AND contains(lower(coalesce(m.content, '')), lower($text))))
), orphans AS (
    SELECT f.event_time AS started_at, f.user_id, f.conversation_id, CAST(NULL AS VARCHAR) AS task_id,
           json_extract_string(f.evidence, '$.message_id') AS reply_id, 'no turn' AS status,
           CAST(NULL AS VARCHAR) AS goal, json_extract_string(f.evidence, '$.reply') AS final_answer,
           CAST(NULL AS VARCHAR) AS agent_version, CAST(NULL AS VARCHAR) AS source_file,
           CAST(NULL AS BIGINT) AS source_line
    FROM findings f
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done' AND f.task_id IS NULL
      AND $task_id IS NULL
      AND (f.event_time IS NULL OR (f.event_time >= $since AND f.event_time < $until))
      AND ($user_id IS NULL OR f.user_id = $user_id)
      AND ($conversation_id IS NULL OR f.conversation_id = $conversation_id)
      AND ($tod_minute IS NULL OR (f.event_time IS NOT NULL AND local_minute_distance(f.event_time, $tz_offset_s, $tod_minute) <= 30))
      AND ($text IS NULL OR contains(lower(coalesce(json_extract_string(f.evidence, '$.reply'), '')), lower($text)))
), hits AS (
    SELECT * FROM (SELECT * FROM turns UNION ALL SELECT * FROM orphans)
    ORDER BY started_at DESC NULLS LAST, source_file NULLS LAST, source_line NULLS LAST, task_id NULLS LAST, reply_id
    LIMIT $limit
), counted AS (
    SELECT task_id, count(*) AS findings FROM findings
    WHERE run_id = $run_id AND task_id IN (SELECT task_id FROM hits)
    GROUP BY task_id
)
SELECT h.*, coalesce(c.findings, 0) AS findings
FROM hits h LEFT JOIN counted c USING (task_id)
ORDER BY h.started_at DESC NULLS LAST, h.source_file NULLS LAST, h.source_line NULLS LAST, h.task_id NULLS LAST, h.reply_id
