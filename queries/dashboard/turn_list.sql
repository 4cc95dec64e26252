-- turn_list: one user's or one conversation's turns ($user_id / $conversation_id, either may
-- be NULL), all of history: dated ones newest first, then undated ones in source order; each
-- with the said_but_not_done kind of its first false claim in the chosen run (NULL: none) and
-- its findings. Replies that claimed success with no turn at all are listed too (task_id NULL).
WITH t AS (
    SELECT t.started_at, t.task_id, CAST(NULL AS VARCHAR) AS reply_id, t.user_id, t.conversation_id, t.goal,
           t.status, t.agent_version, t.source_file, t.source_line
    FROM tasks t
    WHERE ($user_id IS NOT NULL OR $conversation_id IS NOT NULL)
      AND ($user_id IS NULL OR t.user_id = $user_id)
      AND ($conversation_id IS NULL OR t.conversation_id = $conversation_id)
), orphans AS (
    SELECT f.event_time, CAST(NULL AS VARCHAR), json_extract_string(f.evidence, '$.message_id'), f.user_id,
           f.conversation_id, json_extract_string(f.evidence, '$.reply'), 'no turn', CAST(NULL AS VARCHAR),
           CAST(NULL AS VARCHAR), CAST(NULL AS BIGINT)
    FROM findings f
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done' AND f.task_id IS NULL
      AND ($user_id IS NOT NULL OR $conversation_id IS NOT NULL)
      AND ($user_id IS NULL OR f.user_id = $user_id)
      AND ($conversation_id IS NULL OR f.conversation_id = $conversation_id)
), listed AS (
    SELECT * FROM t UNION ALL SELECT * FROM orphans
    ORDER BY started_at DESC NULLS LAST, source_file NULLS LAST, source_line NULLS LAST, task_id NULLS LAST, reply_id
    LIMIT $limit
), claims AS (
    SELECT task_id, arg_min(json_extract_string(evidence, '$.kind'), event_time) AS claim_kind,
           arg_min(json_extract_string(evidence, '$.message_id'), event_time) AS claim_reply
    FROM findings
    WHERE run_id = $run_id AND rule_id = 'said_but_not_done' AND task_id IN (SELECT task_id FROM listed)
    GROUP BY task_id
), counted AS (
    SELECT task_id, count(*) AS findings FROM findings
    WHERE run_id = $run_id AND task_id IN (SELECT task_id FROM listed)
    GROUP BY task_id
)
SELECT l.*, CASE WHEN l.task_id IS NULL THEN 'not_executed' ELSE c.claim_kind END AS claim_kind,
       coalesce(c.claim_reply, l.reply_id) AS claim_reply,
       CASE WHEN l.task_id IS NULL THEN 1 ELSE coalesce(n.findings, 0) END AS findings
FROM listed l LEFT JOIN claims c USING (task_id) LEFT JOIN counted n USING (task_id)
ORDER BY l.started_at DESC NULLS LAST, l.source_file NULLS LAST, l.source_line NULLS LAST, l.task_id NULLS LAST,
         l.reply_id
