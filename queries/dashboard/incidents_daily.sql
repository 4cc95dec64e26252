-- incidents_daily: said-but-not-done findings per local day and kind (day NULL: findings with no
-- time, e.g. undated transcripts; every period counts them).
SELECT day_of(local_day_no(f.event_time, $tz_offset_s)) AS day,
       coalesce(json_extract_string(f.evidence, '$.kind'), 'unknown') AS kind,
       count(*) AS incidents
FROM findings f
WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done'
  AND (f.event_time IS NULL OR (f.event_time >= $since AND f.event_time < $until))
  AND ($agent_version IS NULL OR f.task_id IN (SELECT task_id FROM tasks WHERE agent_version = $agent_version))
  AND ($tool IS NULL OR f.task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
GROUP BY ALL
ORDER BY day, kind
