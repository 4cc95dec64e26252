-- id = "said_but_not_done"
-- title = "The reply claims it was done, the trace shows it was not"
-- severity = "block"
-- evidence_steps = "write"
-- description = """
-- The assistant's reply for a turn claims an action was completed (see
-- _reply_claims.sql and the claim lexicon), and the turn has no write step
-- that is success AND verified and actually created or changed something.
-- kind: not_executed (no task, or no write step that started), failed,
-- unverified (success but no confirming read-back), not_created (success, but
-- the detail says conflict / already exists / not created), partial (some
-- writes landed, another did not, and the reply does not say so).
-- """
-- message = "reply claims completion but the turn is {kind}: {reply}"
WITH claims AS (
    SELECT * FROM reply_claims WHERE is_claim = TRUE
),
per_task AS (
    SELECT task_id,
           sum(CASE WHEN outcome = 'good' THEN 1 ELSE 0 END) AS good,
           sum(CASE WHEN outcome NOT IN ('good', 'running') AND recovered = 0 THEN 1 ELSE 0 END) AS open_bad,
           sum(CASE WHEN outcome <> 'not_started' THEN 1 ELSE 0 END) AS executed,
           sum(CASE WHEN outcome = 'not_created' THEN 1 ELSE 0 END) AS not_created,
           sum(CASE WHEN outcome = 'unverified' THEN 1 ELSE 0 END) AS unverified
    FROM write_steps
    GROUP BY task_id
),
judged AS (
    SELECT c.task_id, c.conversation_id, c.user_id, c.reply_id, c.reply_text, c.reply_time, c.link,
           coalesce(p.good, 0) AS good_writes, coalesce(p.open_bad, 0) AS open_bad_writes,
           CASE
               WHEN c.task_id IS NULL OR coalesce(p.executed, 0) = 0 THEN 'not_executed'
               WHEN p.good > 0 AND p.open_bad > 0 THEN 'partial'
               WHEN p.good > 0 THEN 'ok'
               WHEN p.not_created > 0 THEN 'not_created'
               WHEN p.unverified > 0 THEN 'unverified'
               ELSE 'failed'
           END AS kind
    FROM claims c
    LEFT JOIN per_task p ON p.task_id = c.task_id
)
SELECT task_id, conversation_id, user_id, reply_time AS event_time,
       kind, reply_text AS reply, reply_id AS message_id, link, good_writes, open_bad_writes
FROM judged
WHERE kind <> 'ok'
