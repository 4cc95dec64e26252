-- vf_daily: verified=false rate per tool and local day (checked steps only).
SELECT s.tool,
       day_of(local_day_no(t.started_at, $tz_offset_s)) AS day,
       count(*) AS checked_steps,
       count_if(s.verified = FALSE) AS verified_false,
       count_if(s.verified = FALSE) / count(*) AS verified_false_rate
FROM steps s JOIN tasks t USING (task_id)
WHERE s.verified IS NOT NULL
  AND t.started_at >= $since AND t.started_at < $until
  AND ($agent_version IS NULL OR t.agent_version = $agent_version)
  AND ($tool IS NULL OR s.tool = $tool)
GROUP BY ALL
ORDER BY s.tool, day
