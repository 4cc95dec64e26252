-- turn_steps: every step of one turn in order.
SELECT seq, tool, kind, args, reason, status, verified, attempts, error, detail, result,
       started_at, ended_at, date_diff('millisecond', started_at, ended_at) AS latency_ms
FROM steps WHERE task_id = $task_id
ORDER BY seq
