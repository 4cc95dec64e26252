-- id = "_claim_fits"
-- title = "Turn model: which writes fit each claimed action"
-- uses = ["_claimed_items", "_write_steps"]
-- description = """
-- One row per (claimed action, write step of its window that fits it). A write
-- fits a claim when:
-- - the claim names an object a sibling tool names too (bags:
--   update_reservation_baggages, a write tool of the same source file about
--   the same thing as one of this turn's writes, a reservation): only tools
--   naming it fit. One agent's tools: an airline agent's baggage tool says
--   nothing of a shop's "Luggage Set", a ticketing tool nothing of a cinema's
--   orders; where no sibling names it, what follows decides;
-- - a tool that names other things (hotelOrderModify) fits a claim about an
--   object (breakfast) only when its arguments mention it (a returned record
--   describes everything the thing has, not what this call changed);
-- - and by action class: the write's class is one that can back the claim's
--   (backs, from [actions.*] backed_by; a write tool whose name has no verb,
--   typed a write by annotation or config, fits any); a clause with no action
--   class ("All set!") or a generic one ("handled") is fitted by any write;
-- - a claim about a consequence ([object_consequences]: "the difference has
--   been refunded") is fitted by a write of the classes it follows from (a
--   cancel) or one whose arguments carry it (payment_id).
-- names_object: 1 when the tool's name names the claim's object. exact: 1 when
-- the write fits by more than the broad family of create/update/book/refund.
-- """
WITH named AS (
    -- claims about an object a sibling tool names: a write tool of the same source that names the
    -- object and is about the same thing as a write of this task (update_reservation_baggages beside
    -- update_reservation_flights); only tools naming the object fit such a claim
    SELECT DISTINCT i.reply_id, i.clause_no, 1 AS is_named
    FROM claimed_items i
    JOIN write_steps w ON w.task_id = i.task_id
    JOIN tool_classes tw ON tw.tool = w.tool AND tw.main_object IS NOT NULL
    JOIN (SELECT DISTINCT source_file, tool FROM steps) u ON u.source_file = i.source_file
    JOIN tool_classes tu ON tu.tool = u.tool AND tu.is_write = TRUE
         AND tu.objects LIKE '%,' || i.object || ',%' AND tu.objects LIKE '%,' || tw.main_object || ',%'
    WHERE i.object IS NOT NULL AND i.follows = FALSE
),
fits AS (

    SELECT i.reply_id, i.clause_no, i.task_id, w.seq, w.tool, w.outcome,
           CASE WHEN i.object IS NOT NULL AND t.objects LIKE '%,' || i.object || ',%' THEN 1 ELSE 0 END AS names_object,
           -- fits by more than the family of classes: the same class, or a tool naming the object
           CASE WHEN (i.object IS NOT NULL AND t.objects LIKE '%,' || i.object || ',%') OR i.action = t.action
                     OR i.follows = TRUE OR i.backs = ',*,' OR i.action IS NULL OR t.action IS NULL
                     OR (i.object IS NOT NULL AND regexp_matches(coalesce(CAST(s.args AS VARCHAR), ''), i.object_re))
                THEN 1 ELSE 0 END AS exact
    FROM claimed_items i
    JOIN write_steps w ON w.task_id = i.task_id
    JOIN tool_classes t ON t.tool = w.tool
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
    LEFT JOIN named n ON n.reply_id = i.reply_id AND n.clause_no = i.clause_no
    WHERE (i.has_recent = 0
           OR (w.msg_index IS NOT NULL AND w.msg_index < i.reply_index
               AND (i.prev_reply_index IS NULL OR w.msg_index >= i.prev_reply_index)))
      AND CASE
              -- a consequence (a refund, a payment, invitations) follows from a write of its classes,
              -- or from one whose arguments carry it (payment_id, attendees)
              WHEN i.follows = TRUE THEN coalesce(i.backs, '') LIKE '%,' || coalesce(t.action, '?') || ',%'
                   OR regexp_matches(coalesce(CAST(s.args AS VARCHAR), ''), i.object_re)
                   OR t.objects LIKE '%,' || coalesce(i.follows_object, '?') || ',%'
              WHEN coalesce(n.is_named, 0) = 1 AND NOT (t.objects LIKE '%,' || i.object || ',%') THEN FALSE
              -- a tool about other things, whose call does not mention the claim's object either
              WHEN i.object IS NOT NULL AND t.objects <> ',,'
                   AND NOT (t.objects LIKE '%,' || i.object || ',%')
                   AND NOT regexp_matches(coalesce(CAST(s.args AS VARCHAR), ''), i.object_re) THEN FALSE
              WHEN i.action IS NULL OR i.backs = ',*,' OR t.action IS NULL THEN TRUE
              ELSE coalesce(i.backs, '') LIKE '%,' || t.action || ',%'
          END
)
SELECT * FROM fits
