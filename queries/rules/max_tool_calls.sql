-- id = "max_tool_calls"
-- title = "Too many tool calls in one turn"
-- severity = "block"
-- description = "More than max_calls tool (and verify) calls in one task: a runaway loop or an over-eager plan."
-- message = "{calls} tool calls in one turn (limit {max_calls})"
-- [params]
-- max_calls = 10
SELECT s.task_id, max(coalesce(s.ended_at, s.started_at)) AS event_time, count(*) AS calls, $max_calls AS max_calls
FROM steps s
WHERE coalesce(s.kind, 'tool') <> 'llm'
GROUP BY s.task_id
HAVING count(*) > $max_calls
