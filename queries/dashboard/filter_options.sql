-- filter_options: what the sidebar can offer (agent versions, tools, the data's time span).
SELECT 'agent_version' AS facet, agent_version AS value, count(*) AS n, min(started_at) AS first_ts, max(started_at) AS last_ts
FROM tasks WHERE agent_version IS NOT NULL GROUP BY agent_version
UNION ALL
SELECT 'tool', tool, count(*), NULL, NULL
FROM steps WHERE tool IS NOT NULL AND coalesce(kind, 'tool') IN ('tool', 'verify') GROUP BY tool
UNION ALL
SELECT 'span', NULL, count(*), min(started_at), max(started_at) FROM tasks
ORDER BY facet, n DESC, value NULLS LAST
