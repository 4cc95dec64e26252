-- id = "_write_steps"
-- title = "Turn model: every write step with what it really achieved"
-- description = """
-- outcome: good (success and verified, or success from a source that cannot
-- record a read-back), not_started (failed before it ran: not logged in, no
-- permission, unknown tool), not_created (success that made nothing: conflict,
-- duplicate), unverified (success, read-back missing or false), running,
-- failed. recovered: a later good step of the same tool in the same task
-- (a re-plan that fixed it).
-- """
WITH w AS (
    SELECT s.task_id, s.seq, s.tool, s.status, s.verified, s.attempts, s.error, s.detail,
           CASE
               WHEN s.status = 'failed' AND regexp_matches(coalesce(s.error, ''), $not_started_re) THEN 'not_started'
               WHEN regexp_matches(coalesce(s.detail, ''), $not_created_re) THEN 'not_created'
               WHEN s.status = 'success' AND s.verified = TRUE THEN 'good'
               WHEN s.status = 'success' AND s.verified IS NULL
                    AND regexp_matches(coalesce(t.source, ''), $unchecked_sources_re) THEN 'good'
               WHEN s.status = 'success' THEN 'unverified'
               WHEN s.status = 'running' THEN 'running'
               ELSE 'failed'
           END AS outcome
    FROM steps s
    LEFT JOIN tasks t ON t.task_id = s.task_id
    WHERE regexp_matches(coalesce(s.tool, ''), $write_tool_re)
)
SELECT w.*,
       CASE WHEN EXISTS (SELECT 1 FROM w g WHERE g.task_id = w.task_id AND g.tool = w.tool
                                           AND g.seq > w.seq AND g.outcome = 'good') THEN 1 ELSE 0 END AS recovered
FROM w
