-- id = "verified_false"
-- title = "A step reported success but its read-back did not confirm it"
-- severity = "warn"
-- description = """
-- status = success and verified = false: the write path said yes, the database
-- said no. Many of these for one tool in a short time is a write-path fault,
-- not the model's wording.
-- """
-- message = "step {seq} {tool} returned success but the read-back failed: {detail}"
SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS event_time,
       s.tool, s.error, coalesce(s.detail, s.error, '') AS detail, s.attempts
FROM steps s
WHERE s.status = 'success' AND s.verified = FALSE
