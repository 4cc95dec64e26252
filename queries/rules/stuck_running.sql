-- id = "stuck_running"
-- title = "A task is still running long after it started"
-- severity = "warn"
-- description = """
-- status running, no finish time, started more than threshold_minutes before
-- --now. The finish step never ran (it belongs in a finally block).
-- """
-- message = "task running for {minutes} min without finishing (threshold {threshold} min)"
-- [params]
-- threshold_minutes = 15
SELECT t.task_id, t.conversation_id, t.user_id, t.started_at AS event_time,
       floor(date_diff('second', t.started_at, $now) / 60) AS minutes,
       $threshold_minutes AS threshold, t.goal
FROM tasks t
WHERE t.status = 'running' AND t.finished_at IS NULL AND t.started_at IS NOT NULL
  AND date_diff('second', t.started_at, $now) > $threshold_minutes * 60
