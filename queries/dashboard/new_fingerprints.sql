-- new_fingerprints: error fingerprints (any failed or verified=false step) first seen in
-- the period: nothing with the same tool and fingerprint occurred before $since.
WITH errs AS (
    SELECT s.tool, error_fingerprint(s.error) AS fingerprint, t.started_at, s.error
    FROM steps s JOIN tasks t USING (task_id)
    WHERE (s.verified = FALSE OR s.status = 'failed') AND t.started_at < $until
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
      AND ($tool IS NULL OR s.tool = $tool)
)
SELECT tool, fingerprint, count(*) AS steps, min(started_at) AS first_seen, any_value(error) AS example
FROM errs
GROUP BY ALL
HAVING min(started_at) >= $since
ORDER BY steps DESC, tool, fingerprint
LIMIT $limit
