-- vf_daily: verified=false rate per tool and local day of the turn (checked steps only),
-- from the page's checked_steps stage.
SELECT tool,
       day_of(local_day_no(turn_started, $tz_offset_s)) AS day,
       count(*) AS checked_steps,
       count_if(verified = FALSE) AS verified_false,
       count_if(verified = FALSE) / count(*) AS verified_false_rate
FROM checked_steps
GROUP BY ALL
ORDER BY tool, day
