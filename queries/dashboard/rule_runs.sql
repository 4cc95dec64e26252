-- rule_runs: every rule run, newest first, with how many rules failed.
SELECT run_id, started_at, finished_at, now_ts, engine, finding_count,
       coalesce(json_array_length(failed_rules), 0) AS failed_rules,
       failed_rules AS failed_rules_json,
       coalesce(json_array_length(rules), 0) AS rules_evaluated
FROM rule_runs
ORDER BY started_at DESC NULLS LAST, run_id DESC
