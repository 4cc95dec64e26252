-- stage_period_steps: the steps of the turns that started in the period or the one before it
-- (agent-version and tool filters applied), joined to their turns ONCE per page and counted
-- straight away into a small session table `period_step_counts`: one row per (turn's local
-- day, period, step's local hour, agent version, tool, tool-step flag), a few thousand rows.
-- overview_daily, tool_compare, tool_series and version_tool_rates roll these counts up
-- instead of each joining steps to tasks again. The window on the steps' own start
-- (step_lag.sql) only skips steps that cannot belong to these turns.
CREATE OR REPLACE TEMP TABLE period_step_counts AS
SELECT local_day_no(t.started_at, $tz_offset_s) AS day_no,            -- the turn's local day
       t.started_at >= $since AS current,
       local_hour_no(coalesce(s.started_at, t.started_at), $tz_offset_s) AS step_hour_no,
       t.agent_version,
       s.tool,
       s.tool IS NOT NULL AND coalesce(s.kind, 'tool') IN ('tool', 'verify') AS tool_step,
       count(*) AS steps,
       count_if(s.status = 'failed') AS failed,
       count_if(s.verified IS NOT NULL) AS checked,
       count_if(s.verified = FALSE) AS verified_false,
       count_if(s.verified = TRUE AND s.status = 'success') AS verified_writes,
       count_if(s.attempts >= 2) AS retried,
       count_if(s.status = 'failed' OR s.verified = FALSE) AS problems,
       min(t.started_at) FILTER (WHERE s.verified IS NOT NULL) AS first_checked_turn
FROM steps s JOIN tasks t USING (task_id)
WHERE t.started_at >= $prev_since AND t.started_at < $until
  AND (s.started_at >= $prev_since + $lag_min AND s.started_at < $until + $lag_max OR s.started_at IS NULL)
  AND ($agent_version IS NULL OR t.agent_version = $agent_version)
  AND ($tool IS NULL OR s.tool = $tool)
GROUP BY ALL
