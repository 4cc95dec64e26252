-- rules_diff: two runs compared per rule: findings in each, new in the later run, gone.
-- A finding is identified by (rule, task, seq, message).
WITH a AS (
    SELECT DISTINCT rule_id, task_id, seq, message FROM findings WHERE run_id = $run_a
), b AS (
    SELECT DISTINCT rule_id, task_id, seq, message FROM findings WHERE run_id = $run_b
), rules AS (SELECT rule_id FROM a UNION SELECT rule_id FROM b)
SELECT r.rule_id,
       (SELECT count(*) FROM a WHERE a.rule_id = r.rule_id) AS in_a,
       (SELECT count(*) FROM b WHERE b.rule_id = r.rule_id) AS in_b,
       (SELECT count(*) FROM b WHERE b.rule_id = r.rule_id AND NOT EXISTS (
            SELECT 1 FROM a WHERE a.rule_id = b.rule_id AND a.task_id IS NOT DISTINCT FROM b.task_id
              AND a.seq IS NOT DISTINCT FROM b.seq AND a.message IS NOT DISTINCT FROM b.message)) AS new_in_b,
       (SELECT count(*) FROM a WHERE a.rule_id = r.rule_id AND NOT EXISTS (
            SELECT 1 FROM b WHERE a.rule_id = b.rule_id AND a.task_id IS NOT DISTINCT FROM b.task_id
              AND a.seq IS NOT DISTINCT FROM b.seq AND a.message IS NOT DISTINCT FROM b.message)) AS gone_in_b
FROM rules r
ORDER BY r.rule_id
