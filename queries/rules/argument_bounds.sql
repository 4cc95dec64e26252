-- id = "argument_bounds"
-- title = "A tool argument outside its configured bounds"
-- severity = "warn"
-- description = """
-- Bounds come from [[argument_bounds]] in trace-audit.toml (default: tools
-- matching ^search, top_k in 1..20, may be absent). The engine loads them into the
-- table argument_bounds(tool_re, arg, path, min_value, max_value, required).
-- A non-number, or a missing argument when required = true, is a violation too.
-- """
-- message = "{tool}.{arg} = {value} outside [{min_value}, {max_value}]"
WITH checked AS (
    SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS event_time, s.tool, b.arg,
           json_extract_string(s.args, b.path) AS value,
           TRY_CAST(json_extract_string(s.args, b.path) AS DOUBLE) AS num,
           b.min_value, b.max_value, b.required
    FROM steps s
    JOIN argument_bounds b ON regexp_matches(coalesce(s.tool, ''), b.tool_re)
)
SELECT task_id, seq, event_time, tool, arg, coalesce(value, 'missing') AS value, min_value, max_value
FROM checked
WHERE (value IS NULL AND required = TRUE)
   OR (value IS NOT NULL AND num IS NULL)
   OR (num IS NOT NULL AND min_value IS NOT NULL AND num < min_value)
   OR (num IS NOT NULL AND max_value IS NOT NULL AND num > max_value)
