-- turn_value_checks: each value of one turn compared with what was written (the turn model's
-- value_checks, queries/reading/value_checks.py). check_kind 'told': a value a claim's clause
-- told the user, against the backing write's arguments (written) and the value stored (read back,
-- else the returned record, else the arguments: stored_from). 'asked': a value the user's request
-- asked for, against the write's arguments. verdict: match | mismatch | unbacked (the write stored
-- another claim's value, or was for other claims: this claim's action was never done) | another_thing
-- (a name told of a thing made, over a write that made nothing: it stored another thing's).
SELECT v.check_kind, v.reply_id, v.clause_no, c.clause, v.seq, v.tool, v.field, v.value_type, v.told, v.written,
       v.stored, v.stored_from, v.verdict
FROM value_checks v
LEFT JOIN claimed_actions c ON c.reply_id = v.reply_id AND c.clause_no = v.clause_no
LEFT JOIN turn_replies r ON r.reply_id = v.reply_id
WHERE v.task_id = $task_id
ORDER BY CASE v.check_kind WHEN 'told' THEN 0 ELSE 1 END, c.reply_time NULLS LAST, r.reply_index NULLS LAST,
         v.reply_id, v.clause_no, v.seq, v.field, v.told, v.stored
