-- turn_claimed_actions: each action the replies of one turn claim (the turn model's
-- claimed_actions, _claimed_actions.sql) and the write that backs it: "tool #seq", that write
-- marked when it did not succeed, or "none" when no write of the reply's window fits the claim
-- or its writes were for other claims of the reply (taken: _claims_taken.sql).
-- restated: the reply repeats an earlier result (no write since the previous reply), judged on
-- the whole turn and not value-checked. Replies in order: time, then position in the conversation.
SELECT c.reply_id, c.clause_no, c.clause, c.action, c.object,
       CASE WHEN c.taken = 1 THEN 'taken' ELSE c.status END AS status,
       CASE WHEN c.status = 'none' THEN 'none'
            WHEN c.taken = 1 THEN 'none: ' || c.backing_tool || ' #' || CAST(c.backing_seq AS VARCHAR)
                                  || ' was for another claim of the reply'
            ELSE c.backing_tool || ' #' || CAST(c.backing_seq AS VARCHAR)
                 || CASE WHEN c.status = 'bad' THEN ' (did not succeed)' ELSE '' END
       END AS backed_by,
       c.backing_tool, c.backing_seq, c.own_window = 0 AS restated
FROM claimed_actions c
LEFT JOIN turn_replies r ON r.reply_id = c.reply_id
WHERE c.task_id = $task_id
ORDER BY c.reply_time NULLS LAST, r.reply_index NULLS LAST, c.reply_id, c.clause_no
