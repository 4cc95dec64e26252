-- vf_by_hour: verified=false steps by tool and local hour of day (the heatmap).
SELECT s.tool,
       CAST(local_hour_no(coalesce(s.started_at, t.started_at), $tz_offset_s) % 24 AS INTEGER) AS hour,
       count(*) AS verified_false
FROM steps s JOIN tasks t USING (task_id)
WHERE s.verified = FALSE
  AND t.started_at >= $since AND t.started_at < $until
  AND ($agent_version IS NULL OR t.agent_version = $agent_version)
  AND ($tool IS NULL OR s.tool = $tool)
GROUP BY ALL
ORDER BY s.tool, hour
