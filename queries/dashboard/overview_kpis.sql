-- overview_kpis: headline numbers for the chosen period and the one just before it.
-- A turn belongs to the period in which it started. A write is a tool step whose
-- read-back was checked or whose name says it writes.
WITH turns AS (
    SELECT CASE WHEN started_at >= $since THEN 'current' ELSE 'previous' END AS period, task_id
    FROM tasks
    WHERE started_at >= $prev_since AND started_at < $until
      AND ($agent_version IS NULL OR agent_version = $agent_version)
      AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
), writes AS (
    SELECT t.period,
           count(*) AS write_steps,
           count_if(s.verified = TRUE AND s.status = 'success') AS verified_writes,
           count_if(s.verified = FALSE) AS verified_false
    FROM steps s JOIN turns t USING (task_id)
    WHERE ($tool IS NULL OR s.tool = $tool)
      AND (s.verified IS NOT NULL
           OR regexp_matches(s.tool, '^(create|add|set|update|edit|modify|delete|remove|cancel|save|write|insert)_'))
    GROUP BY t.period
), incidents AS (
    SELECT CASE WHEN f.event_time >= $since THEN 'current' ELSE 'previous' END AS period, count(*) AS incidents
    FROM findings f LEFT JOIN tasks t ON t.task_id = f.task_id
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done'
      AND f.event_time >= $prev_since AND f.event_time < $until
      AND ($agent_version IS NULL OR t.agent_version = $agent_version)
      AND ($tool IS NULL OR f.task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
    GROUP BY ALL
), turn_counts AS (
    SELECT period, count(*) AS turns FROM turns GROUP BY period
)
SELECT p.period,
       coalesce(tc.turns, 0) AS turns,
       coalesce(i.incidents, 0) AS incidents,
       coalesce(w.write_steps, 0) AS write_steps,
       coalesce(w.verified_writes, 0) AS verified_writes,
       coalesce(w.verified_false, 0) AS verified_false
FROM (VALUES ('current'), ('previous')) p(period)
LEFT JOIN turn_counts tc USING (period)
LEFT JOIN writes w USING (period)
LEFT JOIN incidents i USING (period)
ORDER BY p.period
