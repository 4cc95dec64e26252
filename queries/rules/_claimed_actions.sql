-- id = "_claimed_actions"
-- title = "Turn model: each action a reply claims, and the write that backs it"
-- uses = ["_reply_claims", "_write_steps"]
-- description = """
-- One row per claimed action: each completion clause of a claiming reply that
-- no later clause took back (claim_items, read once per distinct reply text by
-- queries/reading/tables.py), with the values it states (vals, JSON).
-- The writes that can back it are those of the reply's window: for replies
-- with message positions, the write calls since the previous reply (the whole
-- task when there were none, as for a restated result); otherwise the task.
-- A write fits a claim when:
-- - the claim names an object some write tool of the warehouse names too
--   (bags: update_reservation_baggages): only writes of tools naming it fit;
-- - a tool that names other things (hotelOrderModify) fits a claim about an
--   object (breakfast) only when its arguments mention it (a returned record
--   describes everything the thing has, not what this call changed);
-- - and by action class: the write's class is one that can back the
--   claim's (backs, from [actions.*] backed_by; a write tool whose name has no
--   verb, typed a write by annotation or config, fits any); a clause with no action class
--   ("All set!") or about a consequence ([object_consequences]: "the payment
--   has been processed" after a booking) is fitted by any write.
-- "Some write tool names it" is asked within the claim's source file: one
-- agent's tools (an airline agent's baggage tool says nothing of a shop's
-- "Luggage Set"), and a file that never used the tool falls back to classes.
-- status: backed (a fitting write is good), bad (fitting writes, none good),
-- none (no fitting write in the window: the action was never attempted).
-- backing_seq: the last good fitting write, else the last fitting write.
-- own_window: 1 when the writes judged are the reply's own (a source without
-- positions, or a positioned reply with write calls since the previous one);
-- 0 for a restated result judged by the whole task, which said_but_not_done
-- never calls partial.
-- """
WITH items AS (
    SELECT r.reply_id, r.task_id, r.reply_index, r.prev_reply_index, r.reply_time, k.source_file,
           c.clause_no, c.action, c.object, c.object_re, c.backs, c.clause, c.vals
    FROM reply_claims r
    JOIN claim_items c ON c.reply_text = r.reply_text
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
),
named AS (
    -- objects some write tool of the same source names: a claim about one is fitted by those tools only
    SELECT o.source_file, o.object, max(1) AS is_named
    FROM (SELECT DISTINCT source_file, object FROM items WHERE object IS NOT NULL AND backs <> ',*,') o
    JOIN (SELECT DISTINCT source_file, tool FROM steps) u ON u.source_file = o.source_file
    JOIN tool_classes t ON t.tool = u.tool AND t.is_write = TRUE AND t.objects LIKE '%,' || o.object || ',%'
    GROUP BY o.source_file, o.object
),
fits AS (
    SELECT i.reply_id, i.clause_no, w.seq, w.outcome
    FROM items i
    JOIN write_steps w ON w.task_id = i.task_id
    JOIN tool_classes t ON t.tool = w.tool
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
    LEFT JOIN recent rc ON rc.reply_id = i.reply_id
    LEFT JOIN named n ON n.object = i.object AND n.source_file = i.source_file
    WHERE (coalesce(rc.has_recent, 0) = 0
           OR (w.msg_index IS NOT NULL AND w.msg_index < i.reply_index
               AND (i.prev_reply_index IS NULL OR w.msg_index >= i.prev_reply_index)))
      AND CASE
              WHEN coalesce(n.is_named, 0) = 1 AND NOT (t.objects LIKE '%,' || i.object || ',%') THEN FALSE
              -- a tool about other things, whose call does not mention the claim's object either
              WHEN i.object IS NOT NULL AND i.backs <> ',*,' AND t.objects <> ',,'
                   AND NOT (t.objects LIKE '%,' || i.object || ',%')
                   AND NOT regexp_matches(coalesce(CAST(s.args AS VARCHAR), ''), i.object_re) THEN FALSE
              WHEN i.action IS NULL OR i.backs = ',*,' OR t.action IS NULL THEN TRUE
              ELSE coalesce(i.backs, '') LIKE '%,' || t.action || ',%'
          END
),
per_item AS (
    SELECT reply_id, clause_no,
           max(CASE WHEN outcome = 'good' THEN seq END) AS good_seq,
           max(seq) AS last_seq
    FROM fits
    GROUP BY reply_id, clause_no
)
SELECT i.reply_id, i.task_id, i.reply_time, i.clause_no, i.action, i.object, i.clause, i.vals,
       CASE WHEN i.reply_index IS NULL OR coalesce(rc.has_recent, 0) = 1 THEN 1 ELSE 0 END AS own_window,
       CASE WHEN p.good_seq IS NOT NULL THEN 'backed' WHEN p.last_seq IS NOT NULL THEN 'bad' ELSE 'none' END AS status,
       coalesce(p.good_seq, p.last_seq) AS backing_seq,
       w.tool AS backing_tool
FROM items i
LEFT JOIN recent rc ON rc.reply_id = i.reply_id
LEFT JOIN per_item p ON p.reply_id = i.reply_id AND p.clause_no = i.clause_no
LEFT JOIN write_steps w ON w.task_id = i.task_id AND w.seq = coalesce(p.good_seq, p.last_seq)
