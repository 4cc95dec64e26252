-- agent_versions: the agent_version rows of filter_options (same columns) without its scan of
-- every step for the tool list; the weekly report only needs when each version first ran.
SELECT 'agent_version' AS facet, agent_version AS value, count(*) AS n, min(started_at) AS first_ts, max(started_at) AS last_ts
FROM tasks WHERE agent_version IS NOT NULL GROUP BY agent_version
ORDER BY n DESC, value
