-- version_tool_rates: per tool and agent version, verified=false among checked steps in
-- the period, with when the version was first seen anywhere (its rollout).
WITH firsts AS (
    SELECT agent_version, min(started_at) AS version_first_seen FROM tasks GROUP BY agent_version
)
SELECT s.tool, coalesce(t.agent_version, '(none)') AS agent_version,
       count(*) AS checked_steps, count_if(s.verified = FALSE) AS verified_false,
       min(t.started_at) AS first_seen_in_period, any_value(f.version_first_seen) AS version_first_seen
FROM steps s JOIN tasks t USING (task_id)
LEFT JOIN firsts f ON f.agent_version IS NOT DISTINCT FROM t.agent_version
WHERE s.verified IS NOT NULL
  AND t.started_at >= $since AND t.started_at < $until
  AND ($tool IS NULL OR s.tool = $tool)
GROUP BY ALL
ORDER BY s.tool, agent_version
