-- id = "_claimed_actions"
-- title = "Turn model: each action a reply claims, and the write that backs it"
-- uses = ["_claimed_items", "_claim_fits", "_write_steps", "_claims_taken"]
-- description = """
-- One row per claimed action: each completion clause of a claiming reply that
-- no later clause took back (claim_items, read once per distinct reply text by
-- queries/reading/tables.py); has_vals: it states values (claim_items.vals, JSON, by text_id
-- and clause_no).
-- The writes that can back it are those of the reply's window (_claimed_items)
-- that fit it (_claim_fits.sql: by object, then by action class).
-- status: backed (a fitting write is good), bad (fitting writes, none good),
-- none (no fitting write in the window: the action was never attempted).
-- backing_seq: the last good fitting write, else the last fitting write;
-- exact: 1 when a good write fits it by more than the broad class family.
-- own_window: 1 when the writes judged are the reply's own (a source without
-- positions, or a positioned reply with write calls since the previous one);
-- 0 for a restated result judged by the whole task, which said_but_not_done
-- never calls partial.
-- taken: 1 when the claim's writes were for other claims of the reply, so
-- nothing backs it (_claims_taken.sql; said_but_not_done counts it unbacked).
-- """
WITH per_item AS (
    -- the backing write: a good one naming the claim's object, else the last good, else the last
    SELECT reply_id, clause_no,
           coalesce(max(CASE WHEN outcome = 'good' AND names_object = 1 THEN seq END),
                    max(CASE WHEN outcome = 'good' THEN seq END)) AS good_seq,
           max(seq) AS last_seq,
           max(CASE WHEN outcome = 'good' AND exact = 1 THEN 1 ELSE 0 END) AS exact
    FROM claim_fits
    GROUP BY reply_id, clause_no
)
SELECT i.reply_id, i.task_id, i.text_id, i.reply_time, i.clause_no, i.action, i.object, i.follows, i.clause, i.has_vals,
       CASE WHEN i.reply_index IS NULL OR i.has_recent = 1 THEN 1 ELSE 0 END AS own_window,
       CASE WHEN p.good_seq IS NOT NULL THEN 'backed' WHEN p.last_seq IS NOT NULL THEN 'bad' ELSE 'none' END AS status,
       coalesce(p.good_seq, p.last_seq) AS backing_seq, coalesce(p.exact, 0) AS exact,
       w.tool AS backing_tool, t.action AS backing_action,
       CASE WHEN k.clause_no IS NOT NULL THEN 1 ELSE 0 END AS taken
FROM claimed_items i
LEFT JOIN per_item p ON p.reply_id = i.reply_id AND p.clause_no = i.clause_no
LEFT JOIN write_steps w ON w.task_id = i.task_id AND w.seq = coalesce(p.good_seq, p.last_seq)
LEFT JOIN tool_classes t ON t.tool = w.tool
LEFT JOIN claims_taken k ON k.reply_id = i.reply_id AND k.clause_no = i.clause_no
