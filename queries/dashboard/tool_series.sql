-- tool_series: per tool per local bucket ($grain: 'day' or 'hour'): call volume and the
-- failure, verified=false and retry rates. (Latency percentiles: tool_latency.sql.)
WITH s AS (
    SELECT s.tool, s.status, s.verified, s.attempts,
           CASE WHEN $grain = 'hour' THEN local_hour_no(coalesce(s.started_at, t.started_at), $tz_offset_s)
                ELSE 24 * local_day_no(coalesce(s.started_at, t.started_at), $tz_offset_s) END AS hour_no
    FROM steps s JOIN tasks t USING (task_id)
    WHERE t.started_at >= $since AND t.started_at < $until
      AND s.tool IS NOT NULL AND coalesce(s.kind, 'tool') IN ('tool', 'verify')
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
      AND ($tool IS NULL OR s.tool = $tool)
)
SELECT tool, TIMESTAMP '1970-01-01' + to_seconds(hour_no * 3600) AS bucket,
       count(*) AS calls,
       count_if(status = 'failed') / count(*) AS failure_rate,
       count_if(verified = FALSE) / nullif(count_if(verified IS NOT NULL), 0) AS verified_false_rate,
       count_if(attempts >= 2) / count(*) AS retry_rate
FROM s
GROUP BY tool, hour_no
ORDER BY tool, hour_no
