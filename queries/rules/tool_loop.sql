-- id = "tool_loop"
-- title = "The same tool called more than twice in a row"
-- severity = "warn"
-- description = """
-- Three consecutive steps (by seq) calling the same tool: the agent is looping.
-- Reported once per task, at the third call of the first run.
-- """
-- message = "{tool} called 3+ times in a row from step {first_seq}"
WITH runs AS (
    SELECT s3.task_id, s3.seq, s1.seq AS first_seq, s3.tool, coalesce(s3.ended_at, s3.started_at) AS t_at,
           row_number() OVER (PARTITION BY s3.task_id ORDER BY s3.seq) AS rn
    FROM steps s3
    JOIN steps s2 ON s2.task_id = s3.task_id AND s2.seq = s3.seq - 1 AND s2.tool = s3.tool
    JOIN steps s1 ON s1.task_id = s3.task_id AND s1.seq = s3.seq - 2 AND s1.tool = s3.tool
)
SELECT task_id, seq, first_seq, tool, t_at AS event_time FROM runs WHERE rn = 1
