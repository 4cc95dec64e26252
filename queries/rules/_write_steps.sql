-- id = "_write_steps"
-- title = "Turn model: every write step with what it really achieved"
-- uses = ["_write_tool_names"]
-- description = """
-- outcome: good (success and verified, or success from a source that cannot
-- record a read-back), not_started (failed before it ran: not logged in, no
-- permission, unknown tool), not_created (a step that made nothing: conflict,
-- duplicate; read from detail, error, and a success's result, in both languages), unverified (success, read-back missing or false), running,
-- failed. recovered: a later good step of the same tool in the same task
-- (a re-plan that fixed it). msg_index: the position in the conversation of
-- the message that made the call, when the source records one (chat
-- transcripts: metadata.message_index); NULL otherwise.
-- """
WITH w AS (
    SELECT s.task_id, s.seq, s.tool, s.status, s.verified, s.attempts, s.error, s.detail,
           TRY_CAST(json_extract_string(s.metadata, '$.message_index') AS INTEGER) AS msg_index,
           CASE
               WHEN s.status = 'failed' AND regexp_matches(coalesce(s.error, ''), $not_started_re) THEN 'not_started'
               WHEN (s.detail IS NOT NULL AND regexp_matches(s.detail, $not_created_re))
                    OR (s.error IS NOT NULL AND regexp_matches(s.error, $not_created_re))
                    OR (s.status = 'success' AND s.result IS NOT NULL
                        AND regexp_matches(CAST(s.result AS VARCHAR), $not_created_re)) THEN 'not_created'
               WHEN s.status = 'success' AND s.verified = TRUE THEN 'good'
               WHEN s.status = 'success' AND s.verified IS NULL
                    AND s.task_id IN (SELECT u.task_id FROM tasks u
                                      WHERE u.source IN (SELECT src FROM (SELECT DISTINCT source AS src FROM tasks) k
                                                         WHERE regexp_matches(coalesce(src, ''), $unchecked_sources_re)))
                   THEN 'good'
               WHEN s.status = 'success' THEN 'unverified'
               WHEN s.status = 'running' THEN 'running'
               ELSE 'failed'
           END AS outcome
    FROM steps s
    JOIN write_tool_names n ON n.tool = s.tool
),
last_good AS (
    SELECT task_id, tool, max(seq) AS seq FROM w WHERE outcome = 'good' GROUP BY task_id, tool
)
SELECT w.*, CASE WHEN coalesce(g.seq, 0) > w.seq THEN 1 ELSE 0 END AS recovered
FROM w
LEFT JOIN last_good g ON g.task_id = w.task_id AND g.tool = w.tool
