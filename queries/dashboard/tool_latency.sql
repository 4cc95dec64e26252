-- tool_latency: p50 / p95 step latency (ms) per tool per local bucket ($grain: 'day' or 'hour').
-- Only run when latency is looked at; the window on the steps' own start (step_lag.sql)
-- skips steps that cannot belong to the period's turns before the join.
WITH s AS (
    SELECT s.tool, epoch_ms(s.ended_at) - epoch_ms(s.started_at) AS latency_ms,
           CASE WHEN $grain = 'hour' THEN local_hour_no(s.started_at, $tz_offset_s)
                ELSE 24 * local_day_no(s.started_at, $tz_offset_s) END AS hour_no
    FROM steps s JOIN tasks t USING (task_id)
    WHERE t.started_at >= $since AND t.started_at < $until
      AND s.started_at >= $since + $lag_min AND s.started_at < $until + $lag_max
      AND s.ended_at IS NOT NULL
      AND s.tool IS NOT NULL AND coalesce(s.kind, 'tool') IN ('tool', 'verify')
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
      AND ($tool IS NULL OR s.tool = $tool)
)
SELECT tool, TIMESTAMP '1970-01-01' + to_seconds(hour_no * 3600) AS bucket,
       quantile_cont(latency_ms, [0.5, 0.95]) AS q
FROM s
GROUP BY tool, hour_no
ORDER BY tool, hour_no
