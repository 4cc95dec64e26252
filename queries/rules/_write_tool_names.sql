-- id = "_write_tool_names"
-- title = "Turn model: the tool names that count as writes"
-- description = """
-- One row per distinct tool name that matches the write-tool patterns and is
-- not excluded ([write_tools] in trace-audit.toml). Tool names are few, steps
-- are many: the patterns run once per name here, and rules join on the name
-- instead of running a regex on every step.
-- """
SELECT d.tool
FROM (SELECT DISTINCT tool FROM steps WHERE tool IS NOT NULL) d
WHERE regexp_matches(d.tool, $write_tool_re)
  AND NOT regexp_matches(d.tool, $write_tool_exclude_re)
