-- overview_daily: per local day of the period: turns, incidents, verified=false and failed steps.
WITH turns AS (
    SELECT task_id, CAST(started_at + to_seconds($tz_offset_s) AS DATE) AS day
    FROM tasks
    WHERE started_at >= $since AND started_at < $until
      AND ($agent_version IS NULL OR agent_version = $agent_version)
      AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
), per_turn AS (
    SELECT day, count(*) AS turns FROM turns GROUP BY day
), per_step AS (
    SELECT t.day, count_if(s.verified = FALSE) AS verified_false, count_if(s.status = 'failed') AS failed_steps
    FROM steps s JOIN turns t USING (task_id)
    WHERE ($tool IS NULL OR s.tool = $tool)
    GROUP BY t.day
), per_incident AS (
    SELECT CAST(f.event_time + to_seconds($tz_offset_s) AS DATE) AS day, count(*) AS incidents
    FROM findings f LEFT JOIN tasks t ON t.task_id = f.task_id
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done'
      AND f.event_time >= $since AND f.event_time < $until
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
      AND ($tool IS NULL OR f.task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
    GROUP BY ALL
)
SELECT day, coalesce(turns, 0) AS turns, coalesce(incidents, 0) AS incidents,
       coalesce(verified_false, 0) AS verified_false, coalesce(failed_steps, 0) AS failed_steps
FROM per_turn FULL JOIN per_step USING (day) FULL JOIN per_incident USING (day)
ORDER BY day
