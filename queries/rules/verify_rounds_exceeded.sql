-- id = "verify_rounds_exceeded"
-- title = "More verification rounds than allowed"
-- severity = "warn"
-- description = "The sentinel loop allows at most max_rounds verify_result calls per turn."
-- message = "{rounds} verify_result rounds (limit {max_rounds})"
-- [params]
-- max_rounds = 3
SELECT s.task_id, max(s.seq) AS seq, max(coalesce(s.ended_at, s.started_at)) AS event_time,
       count(*) AS rounds, $max_rounds AS max_rounds
FROM steps s
WHERE s.tool = 'verify_result' OR s.kind = 'verify'
GROUP BY s.task_id
HAVING count(*) > $max_rounds
