-- turn_findings: what the chosen rule run found in one turn.
SELECT rule_id, severity, seq, message, evidence, event_time
FROM findings
WHERE run_id = $run_id AND task_id = $task_id
ORDER BY CASE severity WHEN 'block' THEN 0 WHEN 'review' THEN 1 WHEN 'warn' THEN 2 ELSE 3 END,
         rule_id, seq NULLS FIRST
