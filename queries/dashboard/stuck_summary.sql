-- stuck_summary: every stuck turn counted by the local day it started (axis 'day')
-- and by age bucket (axis 'age'); `ord` orders the buckets within an axis.
WITH stuck AS (
    SELECT day_of(local_day_no(started_at, $tz_offset_s)) AS day,
           date_diff('second', started_at, $now) / 3600.0 AS age_hours
    FROM tasks
    WHERE status = 'running' AND started_at < $stuck_before
      AND ($agent_version IS NULL OR agent_version = $agent_version)
      AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
), aged AS (
    SELECT CASE WHEN age_hours < 1 THEN 0 WHEN age_hours < 6 THEN 1 WHEN age_hours < 24 THEN 2
                WHEN age_hours < 72 THEN 3 WHEN age_hours < 168 THEN 4 ELSE 5 END AS ord
    FROM stuck
)
SELECT 'day' AS axis, CAST(day AS VARCHAR) AS bucket, date_diff('day', DATE '1970-01-01', day) AS ord, count(*) AS stuck
FROM stuck GROUP BY day
UNION ALL
SELECT 'age', ['< 1 h', '1-6 h', '6-24 h', '1-3 d', '3-7 d', '> 7 d'][ord + 1], ord, count(*)
FROM aged GROUP BY ord
ORDER BY axis, ord
