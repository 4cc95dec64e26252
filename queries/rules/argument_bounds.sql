-- id = "argument_bounds"
-- title = "A tool argument outside its configured bounds"
-- severity = "warn"
-- description = """
-- Bounds come from [[argument_bounds]] in trace-audit.toml (default: tools
-- matching ^search, top_k in 1..20, may be absent). The engine loads them into the
-- table argument_bounds(tool_re, arg, path, min_value, max_value, required).
-- A non-number, or a missing argument when required = true, is a violation too.
-- The tool patterns are matched once per distinct tool name, and the argument
-- read from JSON only for the steps of matching tools.
-- """
-- message = "{tool}.{arg} = {value} outside [{min_value}, {max_value}]"
WITH bounded_tools AS (
    SELECT d.tool, b.arg, b.path, b.min_value, b.max_value, b.required
    FROM (SELECT DISTINCT tool FROM steps WHERE tool IS NOT NULL) d
    JOIN argument_bounds b ON regexp_matches(d.tool, b.tool_re)
),
read_args AS (
    SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS event_time, s.tool, b.arg,
           json_extract_string(s.args, b.path) AS value, b.min_value, b.max_value, b.required
    FROM steps s
    JOIN bounded_tools b ON b.tool = s.tool
),
checked AS (
    SELECT r.*, TRY_CAST(r.value AS DOUBLE) AS num FROM read_args r
)
SELECT c.task_id, c.seq, c.event_time, c.tool, c.arg, coalesce(c.value, 'missing') AS value, c.min_value, c.max_value
FROM checked c
WHERE (c.value IS NULL AND c.required = TRUE)
   OR (c.value IS NOT NULL AND c.num IS NULL)
   OR (c.num IS NOT NULL AND c.min_value IS NOT NULL AND c.num < c.min_value)
   OR (c.num IS NOT NULL AND c.max_value IS NOT NULL AND c.num > c.max_value)
