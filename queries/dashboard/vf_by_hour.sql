-- vf_by_hour: verified=false steps by tool and local hour of day (the heatmap), from the
-- page's checked_steps stage.
SELECT tool,
       CAST(local_hour_no(step_at, $tz_offset_s) % 24 AS INTEGER) AS hour,
       count(*) AS verified_false
FROM checked_steps
WHERE verified = FALSE
GROUP BY ALL
ORDER BY tool, hour
