-- stuck_tasks: turns still 'running' past the threshold, oldest first, with their last step.
-- The last step is looked up only for the turns shown (after the LIMIT).
WITH stuck AS (
    SELECT task_id, user_id, conversation_id, goal, started_at, agent_version,
           date_diff('second', started_at, $now) / 60.0 AS age_minutes
    FROM tasks
    WHERE status = 'running' AND started_at < $stuck_before
      AND ($agent_version IS NULL OR agent_version = $agent_version)
      AND ($tool IS NULL OR task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
    ORDER BY started_at, task_id
    LIMIT $limit
), last_step AS (
    SELECT task_id, arg_max(seq, seq) AS last_seq, arg_max(tool, seq) AS last_tool,
           arg_max(status, seq) AS last_status, arg_max(error, seq) AS last_error
    FROM steps
    WHERE task_id IN (SELECT task_id FROM stuck)
    GROUP BY task_id
)
SELECT stuck.started_at, stuck.age_minutes, stuck.user_id, stuck.conversation_id, stuck.task_id,
       stuck.goal, l.last_seq, l.last_tool, l.last_status, l.last_error, stuck.agent_version
FROM stuck LEFT JOIN last_step l USING (task_id)
ORDER BY stuck.started_at, stuck.task_id
