-- stage_checked_steps: the period's steps whose read-back was checked (verified not NULL),
-- with what the verified=false views need, joined to their turns ONCE per page; the four
-- vf_* queries aggregate this session table. (Window on the steps' own start: step_lag.sql.)
CREATE OR REPLACE TEMP TABLE checked_steps AS
SELECT s.tool, s.verified, s.attempts, s.error,
       coalesce(s.started_at, t.started_at) AS step_at,
       t.started_at AS turn_started, t.user_id, t.agent_version, t.model
FROM steps s JOIN tasks t USING (task_id)
WHERE s.verified IS NOT NULL
  AND t.started_at >= $since AND t.started_at < $until
  AND (s.started_at >= $since + $lag_min AND s.started_at < $until + $lag_max OR s.started_at IS NULL)
  AND ($agent_version IS NULL OR t.agent_version = $agent_version)
  AND ($tool IS NULL OR s.tool = $tool)
