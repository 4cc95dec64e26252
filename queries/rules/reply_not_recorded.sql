-- id = "reply_not_recorded"
-- title = "The turn cannot be judged: no reply text was recorded"
-- severity = "info"
-- uses = ["_turn_replies", "_write_steps"]
-- description = """
-- A finished turn with no assistant reply text anywhere (no message linked to
-- it, none linked by time, no final_answer): said_but_not_done cannot tell
-- whether the user was told "done", so the turn is counted and shown here
-- instead of being silently passed. Typical cause: OpenTelemetry without
-- content capture (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT off).
-- Turns still running are left to stuck_running.
-- """
-- message = "no reply text recorded for this turn ({writes} write steps): claims cannot be checked"
SELECT t.task_id, t.conversation_id, t.user_id, coalesce(t.finished_at, t.started_at) AS event_time,
       coalesce(w.writes, 0) AS writes, t.source
FROM tasks t
LEFT JOIN (SELECT task_id, count(*) AS writes FROM write_steps GROUP BY task_id) w ON w.task_id = t.task_id
LEFT JOIN (SELECT task_id, 1 AS answered FROM turn_replies WHERE task_id IS NOT NULL GROUP BY task_id) r
       ON r.task_id = t.task_id
WHERE coalesce(t.status, 'unknown') <> 'running'
  AND coalesce(r.answered, 0) = 0
