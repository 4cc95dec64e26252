-- vf_fingerprints: verified=false steps of the period by tool and error fingerprint.
-- retried_same_error counts steps that used both attempts and still ended on this
-- error: the write path failed twice the same way, a systemic signal.
SELECT s.tool,
       error_fingerprint(s.error) AS fingerprint,
       count(*) AS steps,
       count(DISTINCT t.user_id) AS users,
       count_if(s.attempts >= 2) AS retried_same_error,
       min(coalesce(s.started_at, t.started_at)) AS first_seen,
       max(coalesce(s.started_at, t.started_at)) AS last_seen,
       string_agg(DISTINCT t.agent_version, ', ' ORDER BY t.agent_version) AS agent_versions,
       any_value(s.error) AS example
FROM steps s JOIN tasks t USING (task_id)
WHERE s.verified = FALSE
  AND t.started_at >= $since AND t.started_at < $until
  AND ($agent_version IS NULL OR t.agent_version = $agent_version)
  AND ($tool IS NULL OR s.tool = $tool)
GROUP BY ALL
ORDER BY steps DESC, s.tool, fingerprint
LIMIT $limit
