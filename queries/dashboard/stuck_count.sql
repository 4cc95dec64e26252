-- stuck_count: turns still 'running' that started before now minus the threshold.
SELECT count(*) AS stuck
FROM tasks
WHERE status = 'running' AND started_at < $stuck_before
  AND ($agent_version IS NULL OR agent_version = $agent_version)
  AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
