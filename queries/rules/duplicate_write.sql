-- id = "duplicate_write"
-- title = "The same write succeeded twice in one turn"
-- severity = "warn"
-- uses = ["_write_tool_names"]
-- description = """
-- The same write tool with the same arguments succeeded two or more times in
-- one task: the user gets two identical records (the operation-code double
-- write of the three-layer-defence article).
-- Only a write that makes something can leave a duplicate: create, book, send,
-- refund (two reminders, two charges, two messages), and a write of no known
-- action class. An update or a delete told the same thing twice ends in the
-- same state: a coding agent re-running `python reproduce.py` after its edit,
-- a second "status = shipped", are no duplicate (action classes: tool_classes,
-- `trace-audit rules explain-tools`).
-- """
-- message = "{tool} succeeded {times} times with the same arguments"
SELECT s.task_id, min(s.seq) AS seq, max(coalesce(s.ended_at, s.started_at)) AS event_time,
       s.tool, CAST(s.args AS VARCHAR) AS args, count(*) AS times
FROM steps s
JOIN write_tool_names n ON n.tool = s.tool
WHERE s.status = 'success' AND coalesce(n.action, '') NOT IN ('update', 'delete')
GROUP BY s.task_id, s.tool, CAST(s.args AS VARCHAR)
HAVING count(*) >= 2
