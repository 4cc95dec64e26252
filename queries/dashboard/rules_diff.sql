-- rules_diff: two rule runs compared per rule: findings in A, in B, new in B, resolved since A.
-- `trace-audit rules diff` and the Rules page both run this file, so they give the same
-- numbers. A finding is identified by (rule, task, conversation, seq, evidence.message_id),
-- not by its message text, so a changed threshold or wording shows as the same finding.
WITH k AS (
    SELECT run_id, rule_id,
           coalesce(task_id, '') || '|' || coalesce(conversation_id, '') || '|' ||
           coalesce(CAST(seq AS VARCHAR), '') || '|' ||
           coalesce(json_extract_string(evidence, '$.message_id'), '') AS fkey
    FROM findings WHERE run_id IN ($run_a, $run_b)
),
ka AS (SELECT DISTINCT rule_id, fkey FROM k WHERE run_id = $run_a),
kb AS (SELECT DISTINCT rule_id, fkey FROM k WHERE run_id = $run_b),
rules AS (SELECT rule_id FROM ka UNION SELECT rule_id FROM kb)
SELECT r.rule_id,
       (SELECT count(*) FROM ka WHERE ka.rule_id = r.rule_id) AS in_a,
       (SELECT count(*) FROM kb WHERE kb.rule_id = r.rule_id) AS in_b,
       (SELECT count(*) FROM kb WHERE kb.rule_id = r.rule_id AND NOT EXISTS
           (SELECT 1 FROM ka WHERE ka.rule_id = kb.rule_id AND ka.fkey = kb.fkey)) AS new,
       (SELECT count(*) FROM ka WHERE ka.rule_id = r.rule_id AND NOT EXISTS
           (SELECT 1 FROM kb WHERE kb.rule_id = ka.rule_id AND kb.fkey = ka.fkey)) AS resolved
FROM rules r ORDER BY r.rule_id
