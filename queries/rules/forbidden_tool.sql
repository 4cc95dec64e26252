-- id = "forbidden_tool"
-- title = "A forbidden tool was called"
-- severity = "block"
-- description = """
-- Behaviour bounds: tools that must never be called by the agent, whatever
-- the outcome. Configure with forbidden_tools = [...] in trace-audit.toml.
-- """
-- message = "forbidden tool {tool} called at step {seq} (status {status})"
-- [params]
-- tools = ["delete_database", "drop_table", "send_mass_mail"]
SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS event_time, s.tool, s.status, s.error,
       CAST(s.args AS VARCHAR) AS args
FROM steps s
WHERE regexp_matches(coalesce(s.tool, ''), $tools)
