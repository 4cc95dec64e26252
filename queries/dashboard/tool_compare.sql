-- tool_compare: per tool, counts in the period and the one before (the input of the
-- significance test and of "worst tool").
SELECT s.tool,
       CASE WHEN t.started_at >= $since THEN 'current' ELSE 'previous' END AS period,
       count(*) AS calls,
       count_if(s.status = 'failed') AS failed,
       count_if(s.verified IS NOT NULL) AS checked,
       count_if(s.verified = FALSE) AS verified_false,
       count_if(s.attempts >= 2) AS retried,
       count_if(s.status = 'failed' OR s.verified = FALSE) AS problems
FROM steps s JOIN tasks t USING (task_id)
WHERE t.started_at >= $prev_since AND t.started_at < $until
  AND s.tool IS NOT NULL AND coalesce(s.kind, 'tool') IN ('tool', 'verify')
  AND ($agent_version IS NULL OR t.agent_version = $agent_version)
  AND ($tool IS NULL OR s.tool = $tool)
GROUP BY ALL
ORDER BY s.tool, period
