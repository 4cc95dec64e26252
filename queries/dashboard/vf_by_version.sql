-- vf_by_version: verified=false rate of checked tool steps by agent version and model.
SELECT coalesce(t.agent_version, '(none)') AS agent_version,
       coalesce(t.model, '(none)') AS model,
       count(*) AS checked_steps,
       count_if(s.verified = FALSE) AS verified_false,
       count_if(s.verified = FALSE) / count(*) AS verified_false_rate,
       min(t.started_at) AS first_seen,
       max(t.started_at) AS last_seen
FROM steps s JOIN tasks t USING (task_id)
WHERE s.verified IS NOT NULL
  AND t.started_at >= $since AND t.started_at < $until
  AND ($agent_version IS NULL OR t.agent_version = $agent_version)
  AND ($tool IS NULL OR s.tool = $tool)
GROUP BY ALL
ORDER BY verified_false_rate DESC, agent_version, model
