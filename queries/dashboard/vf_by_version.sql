-- vf_by_version: verified=false rate of checked steps by agent version and model, from the
-- page's checked_steps stage.
SELECT coalesce(agent_version, '(none)') AS agent_version,
       coalesce(model, '(none)') AS model,
       count(*) AS checked_steps,
       count_if(verified = FALSE) AS verified_false,
       count_if(verified = FALSE) / count(*) AS verified_false_rate,
       min(turn_started) AS first_seen,
       max(turn_started) AS last_seen
FROM checked_steps
GROUP BY ALL
ORDER BY verified_false_rate DESC, agent_version, model
