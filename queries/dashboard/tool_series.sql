-- tool_series: per tool per local bucket of the step's own start ($grain: 'day' or 'hour'),
-- in the period: call volume and the failure, verified=false and retry rates, rolled up
-- from the page's period_step_counts stage. (Latency percentiles: tool_latency.sql.)
WITH s AS (
    SELECT tool, steps, failed, checked, verified_false, retried,
           CASE WHEN $grain = 'hour' THEN step_hour_no
                ELSE 24 * CAST(floor(step_hour_no / 24) AS BIGINT) END AS hour_no
    FROM period_step_counts
    WHERE current AND tool_step
)
SELECT tool, TIMESTAMP '1970-01-01' + to_seconds(hour_no * 3600) AS bucket,
       CAST(sum(steps) AS BIGINT) AS calls,
       sum(failed) / sum(steps) AS failure_rate,
       sum(verified_false) / nullif(sum(checked), 0) AS verified_false_rate,
       sum(retried) / sum(steps) AS retry_rate
FROM s
GROUP BY tool, hour_no
ORDER BY tool, hour_no
