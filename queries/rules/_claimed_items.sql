-- id = "_claimed_items"
-- title = "Turn model: each action a reply claims, with the window of writes that can back it"
-- uses = ["_reply_claims", "_write_steps"]
-- description = """
-- One row per claimed action (claim_items, read once per distinct reply text
-- by queries/reading/tables.py) of each claiming reply, with the task's source
-- file and has_recent: 1 when the reply has positions and write calls of its
-- own since the previous reply (then only those can back it), else 0 (the
-- whole task's writes can).
-- """
WITH items AS (
    SELECT r.reply_id, r.task_id, r.text_id, r.reply_index, r.prev_reply_index, r.reply_time, k.source_file,
           c.clause_no, c.action, c.object, c.object_re, c.follows, c.follows_object, c.backs, c.clause,
           CASE WHEN c.vals IS NULL THEN 0 ELSE 1 END AS has_vals
    FROM reply_claims r
    JOIN claim_items c ON c.text_id = r.text_id
    LEFT JOIN tasks k ON k.task_id = r.task_id
    WHERE r.is_claim = TRUE
),
recent AS (
    -- positioned replies that have a write call of their own since the previous reply
    SELECT i.reply_id, max(1) AS has_recent
    FROM items i
    JOIN write_steps w ON w.task_id = i.task_id
    WHERE i.reply_index IS NOT NULL AND w.msg_index IS NOT NULL AND w.msg_index < i.reply_index
      AND (i.prev_reply_index IS NULL OR w.msg_index >= i.prev_reply_index)
    GROUP BY i.reply_id
)
SELECT i.*, coalesce(rc.has_recent, 0) AS has_recent
FROM items i
LEFT JOIN recent rc ON rc.reply_id = i.reply_id
