-- overview_daily: per local day of the period AND the one before it: turns, incidents,
-- writes, verified writes, verified=false and failed steps. The overview's headline numbers
-- are sums of these rows per period (one pass over the steps instead of two).
-- A turn belongs to the day it started. A write is a tool step whose read-back was checked
-- or whose name says it writes.
WITH turns AS (
    SELECT task_id, local_day_no(started_at, $tz_offset_s) AS day_no
    FROM tasks
    WHERE started_at >= $prev_since AND started_at < $until
      AND ($agent_version IS NULL OR agent_version = $agent_version)
      AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
), per_turn AS (
    SELECT day_no, count(*) AS turns FROM turns GROUP BY day_no
), per_step AS (
    SELECT t.day_no,
           count_if(CASE WHEN s.verified IS NOT NULL THEN TRUE ELSE
                    regexp_matches(s.tool, '^(create|add|set|update|edit|modify|delete|remove|cancel|save|write|insert)_')
                    END) AS write_steps,
           count_if(s.verified = TRUE AND s.status = 'success') AS verified_writes,
           count_if(s.verified = FALSE) AS verified_false,
           count_if(s.status = 'failed') AS failed_steps
    FROM steps s JOIN turns t USING (task_id)
    WHERE ($tool IS NULL OR s.tool = $tool)
    GROUP BY t.day_no
), per_incident AS (
    SELECT local_day_no(f.event_time, $tz_offset_s) AS day_no, count(*) AS incidents
    FROM findings f LEFT JOIN tasks t ON t.task_id = f.task_id
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done'
      AND f.event_time >= $prev_since AND f.event_time < $until
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
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
