-- id = "_turn_outcomes"
-- title = "Turn model: what each turn's writes really achieved, as one outcome"
-- uses = ["_write_steps"]
-- description = """
-- One row per task. The counts of its write steps by outcome (see
-- _write_steps.sql; a bad step a later good step of the same tool recovered is
-- not open) and the turn's outcome, the one classification every reader of a
-- turn uses (said_but_not_done, the dashboard's verdict, the users view):
-- running (status running, no finish time: the finish step never ran),
-- no_write (no write step at all: nothing to save, e.g. the turn only read),
-- not_started (write steps, none of which started), partial (some writes good,
-- another open), good, not_created (conflict or duplicate: success that made
-- nothing), unverified (success without a confirming read-back), failed.
-- """
WITH per_task AS (
    SELECT task_id,
           count(*) AS writes,
           sum(CASE WHEN outcome = 'good' THEN 1 ELSE 0 END) AS good,
           sum(CASE WHEN outcome NOT IN ('good', 'running') AND recovered = 0 THEN 1 ELSE 0 END) AS open_bad,
           sum(CASE WHEN outcome <> 'not_started' THEN 1 ELSE 0 END) AS executed,
           sum(CASE WHEN outcome = 'not_created' THEN 1 ELSE 0 END) AS not_created,
           sum(CASE WHEN outcome = 'unverified' THEN 1 ELSE 0 END) AS unverified,
           sum(CASE WHEN outcome = 'running' THEN 1 ELSE 0 END) AS running_steps
    FROM write_steps
    GROUP BY task_id
)
SELECT t.task_id,
       coalesce(p.writes, 0) AS writes, coalesce(p.good, 0) AS good, coalesce(p.open_bad, 0) AS open_bad,
       coalesce(p.executed, 0) AS executed, coalesce(p.not_created, 0) AS not_created,
       coalesce(p.unverified, 0) AS unverified,
       CASE
           WHEN t.status = 'running' AND t.finished_at IS NULL THEN 'running'
           WHEN coalesce(p.writes, 0) = 0 THEN 'no_write'
           WHEN p.executed = 0 THEN 'not_started'
           WHEN p.good > 0 AND p.open_bad > 0 THEN 'partial'
           WHEN p.good > 0 THEN 'good'
           WHEN p.not_created > 0 THEN 'not_created'
           WHEN p.unverified > 0 THEN 'unverified'
           WHEN p.running_steps > 0 THEN 'running'
           ELSE 'failed'
       END AS outcome
FROM tasks t
LEFT JOIN per_task p ON p.task_id = t.task_id
