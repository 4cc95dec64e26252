-- tool_series: per tool per bucket ($grain: 'day' or 'hour', local time): call volume,
-- failure, verified=false and retry rates, p50/p95 latency in ms.
WITH s AS (
    SELECT s.tool, s.status, s.verified, s.attempts,
           date_trunc($grain, coalesce(s.started_at, t.started_at) + to_seconds($tz_offset_s)) AS bucket,
           date_diff('millisecond', s.started_at, s.ended_at) AS latency_ms
    FROM steps s JOIN tasks t USING (task_id)
    WHERE t.started_at >= $since AND t.started_at < $until
      AND s.tool IS NOT NULL AND coalesce(s.kind, 'tool') IN ('tool', 'verify')
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
      AND ($tool IS NULL OR s.tool = $tool)
)
SELECT tool, CAST(bucket AS TIMESTAMP) AS bucket,
       count(*) AS calls,
       count_if(status = 'failed') / count(*) AS failure_rate,
       count_if(verified = FALSE) / nullif(count_if(verified IS NOT NULL), 0) AS verified_false_rate,
       count_if(attempts >= 2) / count(*) AS retry_rate,
       quantile_cont(latency_ms, 0.5) AS p50_ms,
       quantile_cont(latency_ms, 0.95) AS p95_ms
FROM s
GROUP BY ALL
ORDER BY tool, bucket
