-- id = "duplicate_write"
-- title = "The same write succeeded twice in one turn"
-- severity = "warn"
-- uses = ["_write_tool_names"]
-- description = """
-- The same write tool with the same arguments succeeded two or more times in
-- one task: the user gets two identical records (the operation-code double
-- write of the three-layer-defence article).
-- """
-- message = "{tool} succeeded {times} times with the same arguments"
SELECT s.task_id, min(s.seq) AS seq, max(coalesce(s.ended_at, s.started_at)) AS event_time,
       s.tool, CAST(s.args AS VARCHAR) AS args, count(*) AS times
FROM steps s
JOIN write_tool_names n ON n.tool = s.tool
WHERE s.status = 'success'
GROUP BY s.task_id, s.tool, CAST(s.args AS VARCHAR)
HAVING count(*) >= 2
