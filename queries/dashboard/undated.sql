-- undated: the turns with no start time (tau-bench and other transcripts that record none)
-- and what they hold. They belong to no day, so every period counts them, apart from the
-- dated figures: turns, their write steps (same test as overview_daily: read back, or a tool
-- typed_write_tools names, made by the page's stage from the rules' tool typing), verified writes,
-- verified=false and failed steps, and said_but_not_done findings with no time.
WITH turns AS (
    SELECT task_id FROM tasks
    WHERE started_at IS NULL
      AND ($agent_version IS NULL OR agent_version = $agent_version)
      AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
), s AS (
    SELECT s.* FROM steps s WHERE s.task_id IN (SELECT task_id FROM turns) AND ($tool IS NULL OR s.tool = $tool)
)
SELECT (SELECT count(*) FROM turns) AS turns,
       (SELECT count(*) FROM findings f
        WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done' AND f.event_time IS NULL
          AND ($agent_version IS NULL OR f.task_id IN (SELECT task_id FROM turns))
          AND ($tool IS NULL OR f.task_id IN (SELECT task_id FROM turns))) AS incidents,
       (SELECT count(*) FROM s WHERE s.verified IS NOT NULL
            OR s.tool IN (SELECT tool FROM typed_write_tools)) AS write_steps,
       (SELECT count(*) FROM s WHERE s.verified = TRUE AND s.status = 'success') AS verified_writes,
       (SELECT count(*) FROM s WHERE s.verified = FALSE) AS verified_false,
       (SELECT count(*) FROM s WHERE s.status = 'failed') AS failed_steps
