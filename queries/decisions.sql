-- Each turn's decision for one rule run: the worst severity among its findings
-- (block > review > warn; info never decides), `allow` when it has none.
-- One row per task; turns without a task (a reply that linked to none) get a
-- row keyed by the reply's message id with task_id NULL.
-- Bind $run_id.
WITH f AS (
    SELECT task_id, conversation_id, json_extract_string(evidence, '$.message_id') AS message_id, severity,
           CASE severity WHEN 'block' THEN 3 WHEN 'review' THEN 2 WHEN 'warn' THEN 1 ELSE 0 END AS rank
    FROM findings WHERE run_id = $run_id
),
by_task AS (
    SELECT task_id, max(rank) AS rank, count(*) AS findings FROM f WHERE task_id IS NOT NULL GROUP BY task_id
),
no_task AS (
    SELECT message_id, max(conversation_id) AS conversation_id, max(rank) AS rank, count(*) AS findings
    FROM f WHERE task_id IS NULL GROUP BY message_id
)
SELECT t.task_id, t.conversation_id, t.user_id, CAST(NULL AS VARCHAR) AS message_id,
       CASE coalesce(b.rank, 0) WHEN 3 THEN 'block' WHEN 2 THEN 'review' WHEN 1 THEN 'warn' ELSE 'allow' END AS decision,
       coalesce(b.findings, 0) AS findings
FROM tasks t LEFT JOIN by_task b ON b.task_id = t.task_id
UNION ALL
SELECT NULL, n.conversation_id, m.user_id, n.message_id,
       CASE n.rank WHEN 3 THEN 'block' WHEN 2 THEN 'review' WHEN 1 THEN 'warn' ELSE 'allow' END,
       n.findings
FROM no_task n LEFT JOIN messages m ON m.message_id = n.message_id
