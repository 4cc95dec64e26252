-- id = "repeated_failure"
-- title = "A step was retried and failed again with the same error"
-- severity = "warn"
-- description = """
-- attempts >= min_attempts and the step still failed with an error: the retry
-- could not help, so the fault is systemic (parameters, permissions, the
-- write path), not a transient blip.
-- """
-- message = "step {seq} {tool} failed after {attempts} attempts: {error}"
-- [params]
-- min_attempts = 2
SELECT s.task_id, s.seq, coalesce(s.ended_at, s.started_at) AS event_time, s.tool, s.error, s.attempts
FROM steps s
WHERE s.attempts >= $min_attempts AND s.status = 'failed' AND s.error IS NOT NULL AND length(trim(s.error)) > 0
