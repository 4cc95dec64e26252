-- overview_daily: per local day of the period AND the one before it: turns, incidents,
-- writes, verified writes, verified=false and failed steps. The overview's headline numbers
-- are sums of these rows per period. Step counts come from the page's period_step_counts
-- stage (stage_period_steps.sql). A turn belongs to the day it started. A write is a tool step
-- whose read-back was checked or that writes as the rules type tools (typed_write_tools, made
-- with the stage from tool_classes: once per distinct tool, not once per step).
WITH turns AS (
    SELECT local_day_no(started_at, $tz_offset_s) AS day_no
    FROM tasks
    WHERE started_at >= $prev_since AND started_at < $until
      AND ($agent_version IS NULL OR agent_version = $agent_version)
      AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
), per_turn AS (
    SELECT day_no, count(*) AS turns FROM turns GROUP BY day_no
), per_step AS (
    SELECT day_no,
           CAST(sum(CASE WHEN tool IN (SELECT tool FROM typed_write_tools) THEN steps ELSE checked END) AS BIGINT)
               AS write_steps,
           CAST(sum(verified_writes) AS BIGINT) AS verified_writes,
           CAST(sum(verified_false) AS BIGINT) AS verified_false,
           CAST(sum(failed) AS BIGINT) AS failed_steps
    FROM period_step_counts
    GROUP BY day_no
), per_incident AS (
    SELECT local_day_no(f.event_time, $tz_offset_s) AS day_no, count(*) AS incidents
    FROM findings f
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done'
      AND f.event_time >= $prev_since AND f.event_time < $until
      AND ($agent_version IS NULL OR f.task_id IN (SELECT task_id FROM tasks WHERE agent_version = $agent_version))
      AND ($tool IS NULL OR f.task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
    GROUP BY ALL
)
SELECT day_of(day_no) AS day,
       CASE WHEN day_of(day_no) >= CAST($since_day AS DATE) THEN 'current' ELSE 'previous' END AS period,
       coalesce(turns, 0) AS turns, coalesce(incidents, 0) AS incidents,
       coalesce(write_steps, 0) AS write_steps, coalesce(verified_writes, 0) AS verified_writes,
       coalesce(verified_false, 0) AS verified_false, coalesce(failed_steps, 0) AS failed_steps
FROM per_turn FULL JOIN per_step USING (day_no) FULL JOIN per_incident USING (day_no)
ORDER BY day
