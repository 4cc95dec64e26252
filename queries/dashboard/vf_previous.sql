-- vf_previous: verified=false steps of the period just before, per tool and error fingerprint
-- (turns that started in [prev_since, since)), so a pattern's rise can be told from a
-- standing one. The fingerprint regexes run once per distinct error text.
WITH vf AS (
    SELECT s.tool, s.error
    FROM steps s JOIN tasks t USING (task_id)
    WHERE s.verified = FALSE
      AND t.started_at >= $prev_since AND t.started_at < $since
      AND (s.started_at >= $prev_since + $lag_min AND s.started_at < $since + $lag_max OR s.started_at IS NULL)
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
      AND ($tool IS NULL OR s.tool = $tool)
), prints AS (
    SELECT error, error_fingerprint(error) AS fingerprint FROM (SELECT DISTINCT error FROM vf)
)
SELECT vf.tool, p.fingerprint, count(*) AS prev_steps
FROM vf JOIN prints p ON p.error IS NOT DISTINCT FROM vf.error
GROUP BY ALL
