-- new_fingerprints: error fingerprints (any failed or verified=false step) first seen in
-- the period: nothing with the same tool and fingerprint occurred in a turn that started
-- before $since.
-- Cheap by construction: a step that started before $since + lag_min (step_lag.sql) belongs
-- to a turn that started before $since, so only the period's error steps are joined to their
-- turns; the older ones just mark their (tool, fingerprint) as "seen before". Fingerprints are
-- computed once per distinct error text.
WITH errs AS (
    SELECT s.task_id, s.tool, s.error, s.started_at
    FROM steps s
    WHERE (s.verified = FALSE OR s.status = 'failed')
      AND (s.started_at < $until + $lag_max OR s.started_at IS NULL)
      AND ($tool IS NULL OR s.tool = $tool)
      AND ($agent_version IS NULL OR s.task_id IN (SELECT task_id FROM tasks WHERE agent_version = $agent_version))
), seen_before AS (
    SELECT tool, error, CAST(NULL AS TIMESTAMPTZ) AS started_at, TRUE AS before
    FROM errs
    WHERE started_at < $since + $lag_min
      AND task_id NOT IN (SELECT task_id FROM tasks WHERE started_at IS NULL)
), recent AS (
    SELECT e.tool, e.error, t.started_at, FALSE AS before
    FROM errs e JOIN tasks t USING (task_id)
    WHERE e.started_at >= $since + $lag_min
      AND t.started_at >= $since + $lag_min - $lag_max AND t.started_at < $until
    UNION ALL
    SELECT e.tool, e.error, t.started_at, FALSE
    FROM errs e JOIN tasks t USING (task_id)
    WHERE e.started_at IS NULL AND t.started_at < $until
), dated AS MATERIALIZED (
    SELECT * FROM seen_before UNION ALL SELECT * FROM recent
), prints AS (
    SELECT error, error_fingerprint(error) AS fingerprint FROM (SELECT DISTINCT error FROM dated)
)
SELECT d.tool, p.fingerprint, count(*) AS steps, min(d.started_at) AS first_seen, any_value(d.error) AS example
FROM dated d JOIN prints p ON p.error IS NOT DISTINCT FROM d.error
GROUP BY ALL
HAVING NOT bool_or(d.before) AND min(d.started_at) >= $since
ORDER BY steps DESC, d.tool, p.fingerprint
LIMIT $limit
