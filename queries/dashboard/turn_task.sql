-- turn_task: one turn's header.
SELECT task_id, user_id, conversation_id, goal, plan, status, total_steps, success_steps, replanned,
       started_at, finished_at, final_answer, agent_version, model, prompt_version, source,
       source_file, source_line
FROM tasks WHERE task_id = $task_id
