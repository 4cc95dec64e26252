-- turn_claims: the said_but_not_done findings on one turn in the chosen run, one per reply
-- that claimed what was not done: the reply's id and the rules' kind for it.
SELECT json_extract_string(evidence, '$.message_id') AS message_id, json_extract_string(evidence, '$.kind') AS kind,
       event_time, seq
FROM findings
WHERE run_id = $run_id AND rule_id = 'said_but_not_done' AND task_id = $task_id
ORDER BY event_time NULLS LAST, message_id
