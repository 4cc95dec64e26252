-- version_tool_rates: per tool and agent version, verified=false among checked steps in
-- the period (rolled up from the period_step_counts stage), with when the version was first
-- seen anywhere (its rollout). Used by the weekly report, which filters by tool at most
-- (under an agent-version filter the stage would hold that version only).
WITH firsts AS (
    SELECT agent_version, min(started_at) AS version_first_seen FROM tasks GROUP BY agent_version
)
SELECT s.tool, coalesce(s.agent_version, '(none)') AS agent_version,
       CAST(sum(s.checked) AS BIGINT) AS checked_steps, CAST(sum(s.verified_false) AS BIGINT) AS verified_false,
       min(s.first_checked_turn) AS first_seen_in_period, any_value(f.version_first_seen) AS version_first_seen
FROM period_step_counts s
LEFT JOIN firsts f ON f.agent_version IS NOT DISTINCT FROM s.agent_version
WHERE s.checked > 0 AND s.current
GROUP BY ALL
ORDER BY s.tool, agent_version
