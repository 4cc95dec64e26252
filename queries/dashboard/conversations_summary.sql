-- conversations_summary: the conversations with turns in the period (undated turns count in
-- every period): user, turns, said_but_not_done incidents in the chosen run, first and last
-- turn; most incidents first.
WITH t AS (
    SELECT task_id, conversation_id, user_id, started_at FROM tasks
    WHERE conversation_id IS NOT NULL AND (started_at IS NULL OR (started_at >= $since AND started_at < $until))
      AND ($agent_version IS NULL OR agent_version = $agent_version)
), inc AS (
    SELECT conversation_id, count(*) AS incidents FROM findings
    WHERE run_id = $run_id AND rule_id = 'said_but_not_done' AND conversation_id IS NOT NULL
      AND (event_time IS NULL OR (event_time >= $since AND event_time < $until))
    GROUP BY conversation_id
)
SELECT t.conversation_id, any_value(t.user_id) AS user_id, count(*) AS turns,
       coalesce(any_value(i.incidents), 0) AS incidents, min(t.started_at) AS first_turn, max(t.started_at) AS last_turn
FROM t LEFT JOIN inc i USING (conversation_id)
GROUP BY t.conversation_id
ORDER BY incidents DESC, turns DESC, t.conversation_id
LIMIT $limit
