-- rules_summary: findings of one run by rule and severity, within the period.
SELECT f.rule_id, f.severity, count(*) AS findings,
       count(DISTINCT f.task_id) AS turns, count(DISTINCT f.user_id) AS users
FROM findings f
WHERE f.run_id = $run_id
  AND (f.event_time IS NULL OR (f.event_time >= $since AND f.event_time < $until))
  AND ($agent_version IS NULL OR f.task_id IN (SELECT task_id FROM tasks WHERE agent_version = $agent_version))
GROUP BY ALL
ORDER BY findings DESC, f.rule_id, f.severity
