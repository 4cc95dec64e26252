-- users_summary: the users with turns in the period (undated turns count in every period):
-- turns, turns whose reply claimed what was not done (said_but_not_done in the chosen run),
-- the first and last turn; most incidents first.
WITH t AS (
    SELECT task_id, user_id, started_at FROM tasks
    WHERE user_id IS NOT NULL AND (started_at IS NULL OR (started_at >= $since AND started_at < $until))
      AND ($agent_version IS NULL OR agent_version = $agent_version)
), inc AS (
    SELECT user_id, count(*) AS incidents FROM findings
    WHERE run_id = $run_id AND rule_id = 'said_but_not_done' AND user_id IS NOT NULL
      AND (event_time IS NULL OR (event_time >= $since AND event_time < $until))
    GROUP BY user_id
)
SELECT t.user_id, count(*) AS turns, coalesce(any_value(i.incidents), 0) AS incidents,
       count_if(t.started_at IS NULL) AS undated,
       min(t.started_at) AS first_turn, max(t.started_at) AS last_turn
FROM t LEFT JOIN inc i USING (user_id)
GROUP BY t.user_id
ORDER BY incidents DESC, turns DESC, t.user_id
LIMIT $limit
