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
--   orders; where no sibling names it, what follows decides; a call whose
--   arguments mention the object fits it either way (a stay's check_in: a
--   room, where another agent's hotel.booking.create names hotels);
-- - a tool that names other things (hotelOrderModify) fits a claim about an
--   object (breakfast) only when its arguments mention it (a returned record
--   describes everything the thing has, not what this call changed); a send
--   fits a send claim whatever it names (a message carries the note, the
--   receipt, the ETA it sends);
-- - and by action class: the write's class is one that can back the claim's
--   (backs, from [actions.*] backed_by; a write tool whose name has no verb,
--   typed a write by annotation or config, fits any); a clause with no action
--   class ("All set!") or a generic one ("handled") is fitted by any write;
-- - a claim about a consequence ([object_consequences]: "the difference has
--   been refunded") is fitted by a write of the classes it follows from (a
--   cancel), one whose arguments carry it (payment_id), or a tool naming it
--   (refunds.create: the refund is the write itself).
-- - a send claim is fitted by a write whose call asked it to send as it
--   went ({"sendEmail": true}: users.resetPassword backs "I've sent you a
--   reset link"), or named the channel it delivers by ({"delivery": "sms"}).
-- - a claim about a device, a coupon or a fine ([object_named]: backs ends ",named,") is fitted
--   only by a write whose tool names its kind or whose call mentions it; a tool naming it fits
--   whatever its class (fines.pay backs "your fine is cleared").
-- - a write that only keeps a record ([record_only]: crm.add_note, claims.save_draft) fits only a
--   claim that says it noted, logged or saved (backs carries ",records,") or names the note itself.
-- - a write that returned the id the claim tells of its object ("Order
--   ORD-22910048 is placed" over POST /carts/{id}/commit returning that
--   order_id) made that thing, whatever its tool names.
-- names_object: 1 when the tool's name names the claim's object; mentions: the
-- call mentions it (or returned the id the claim tells). exact: 1 when
-- the write fits by more than the broad family of create/update/book/refund.
-- """
WITH siblings AS (
    -- per source file: an object a write tool names, and every object that tool is about
    SELECT DISTINCT u.source_file, a.object, b.object AS shared
    FROM (SELECT DISTINCT source_file, tool FROM steps) u
    JOIN tool_classes t ON t.tool = u.tool AND t.is_write = TRUE
    JOIN tool_objects a ON a.tool = u.tool
    JOIN tool_objects b ON b.tool = u.tool
),
named AS (
    -- claims about an object a sibling tool names: a write tool of the same source that names the
    -- object and is about the same thing as a write of this task (update_reservation_baggages beside
    -- update_reservation_flights); only tools naming the object fit such a claim
    SELECT DISTINCT i.reply_id, i.clause_no, 1 AS is_named
    FROM claimed_items i
    JOIN write_steps w ON w.task_id = i.task_id
    JOIN tool_classes tw ON tw.tool = w.tool
    JOIN siblings g ON g.source_file = i.source_file AND g.object = i.object AND g.shared = tw.main_object
    WHERE i.object IS NOT NULL AND i.follows = FALSE
),
pairs AS (
    -- each claim with each write of its window, and whether the tool names the claim's object (an
    -- equality join on tool_objects: a LIKE with a pattern per row costs far more)
    SELECT i.reply_id, i.clause_no, i.task_id, i.text_id, i.action, i.object, i.object_re, i.follows, i.follows_object, i.backs,
           w.seq, w.tool, w.outcome, t.action AS tool_action, t.objects, coalesce(t.keeps_only, FALSE) AS keeps_only,
           coalesce(t.causes_nothing, FALSE) AS causes_nothing,
           coalesce(n.is_named, 0) AS is_named,
           CASE WHEN o.tool IS NOT NULL THEN 1 ELSE 0 END AS names_object,
           CASE WHEN fo.tool IS NOT NULL THEN 1 ELSE 0 END AS names_follows
    FROM claimed_items i
    JOIN write_steps w ON w.task_id = i.task_id
    JOIN tool_classes t ON t.tool = w.tool
    LEFT JOIN (SELECT DISTINCT tool, object FROM tool_objects) o ON o.tool = w.tool AND o.object = i.object
    LEFT JOIN (SELECT DISTINCT tool, object FROM tool_objects) fo ON fo.tool = w.tool AND fo.object = i.follows_object
    LEFT JOIN named n ON n.reply_id = i.reply_id AND n.clause_no = i.clause_no
    WHERE i.has_recent = 0
       OR (w.msg_index IS NOT NULL AND w.msg_index < i.reply_index
           AND (i.prev_reply_index IS NULL OR w.msg_index >= i.prev_reply_index))
),
asked_mention AS (
    -- only where it matters (a claim's object its tool does not name): the call's arguments and the
    -- object's pattern
    SELECT DISTINCT p.task_id, p.seq, p.object_re, coalesce(CAST(s.args AS VARCHAR), '') AS args
    FROM pairs p
    JOIN steps s ON s.task_id = p.task_id AND s.seq = p.seq
    WHERE p.object IS NOT NULL AND p.names_object = 0
),
mention_checks AS (
    -- whether the arguments mention the object, once per distinct (arguments, pattern): a pattern
    -- that varies by row is compiled for each row it is matched on
    SELECT args, object_re, regexp_matches(args, object_re) AS mentions
    FROM (SELECT DISTINCT args, object_re FROM asked_mention) d
),
mentions AS (
    SELECT m.task_id, m.seq, m.object_re, c.mentions
    FROM asked_mention m
    JOIN mention_checks c ON c.args = m.args AND c.object_re = m.object_re
),
told_ids AS (
    -- the id a claim tells of its own object's kind ("Order ORD-22910048 is placed"), where its
    -- tool names other things and its call does not mention the object (POST /carts/{id}/commit)
    SELECT DISTINCT p.reply_id, p.clause_no, p.task_id, p.seq, p.object,
           regexp_extract(c.vals, '"type": "id"[^{}]*?"value": "([^"]+)"', 1) AS told_id,
           regexp_extract(c.vals, '"type": "id"[^{}]*?"kind": "([^"]+)"', 1) AS told_kind
    FROM pairs p
    JOIN claim_items c ON c.text_id = p.text_id AND c.clause_no = p.clause_no
    WHERE p.object IS NOT NULL AND p.names_object = 0 AND strpos(coalesce(c.vals, ''), '"type": "id"') > 0
),
returned AS (
    -- ... and the write returned that id: the write made that very thing (a cart committed is an
    -- order, and the reply tells the order's number)
    SELECT DISTINCT t.reply_id, t.clause_no, t.seq, TRUE AS returned
    FROM told_ids t
    JOIN steps s ON s.task_id = t.task_id AND s.seq = t.seq
    WHERE t.told_kind = t.object AND length(t.told_id) > 0
      AND strpos(coalesce(CAST(s.result AS VARCHAR), ''), t.told_id) > 0
),
sends AS (
    -- a write of another class asked in its call to send as it goes ({"sendEmail": true},
    -- {"notify_customer": true}), or told the channel it delivers by ({"delivery": "sms"}: a
    -- check-in whose boarding pass goes out by text): it sent the message a send claim tells of
    -- ("I've sent a reset link to your email" over users.resetPassword, "boarding pass sent to your
    -- phone by text" over checkin.create); "sendUpdates": "none", "delivery": "mobile" ask no such thing
    SELECT DISTINCT w.task_id, w.seq
    FROM (SELECT DISTINCT task_id, seq FROM pairs
          WHERE action = 'send' AND tool_action IS DISTINCT FROM 'send' AND outcome = 'good') w
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
    WHERE regexp_matches(coalesce(CAST(s.args AS VARCHAR), ''),
                         '(?i)"(send|notify)[a-z_]*"\s*:\s*true|"[a-z_]*(deliver|send_via|notify_via|notification_channel)[a-z_]*"\s*:\s*"(sms|text|email|e-mail|push)"')
),
pairs_mentioned AS (
    SELECT p.*, (coalesce(x.mentions, FALSE) OR coalesce(r.returned, FALSE)) AS mentions,
           CASE WHEN sd.task_id IS NOT NULL AND p.action = 'send' THEN TRUE ELSE FALSE END AS sends
    FROM pairs p
    LEFT JOIN mentions x ON x.task_id = p.task_id AND x.seq = p.seq AND x.object_re = p.object_re
                        AND p.object IS NOT NULL AND p.names_object = 0
    LEFT JOIN returned r ON r.reply_id = p.reply_id AND r.clause_no = p.clause_no AND r.seq = p.seq
    LEFT JOIN sends sd ON sd.task_id = p.task_id AND sd.seq = p.seq
),
fits AS (
    SELECT p.reply_id, p.clause_no, p.task_id, p.seq, p.tool, p.outcome, p.names_object, p.mentions,
           -- fits by more than the family of classes: the same class, or a tool naming the object
           CASE WHEN p.names_object = 1 OR p.action = p.tool_action OR p.follows = TRUE OR strpos(p.backs, ',*,') > 0
                     OR p.action IS NULL OR p.tool_action IS NULL OR p.mentions = TRUE OR p.sends = TRUE
                THEN 1 ELSE 0 END AS exact
    FROM pairs_mentioned p
    WHERE CASE
              -- a message the write was asked to send with it
              WHEN p.sends = TRUE THEN TRUE
              -- a write that only keeps a record (a note, a draft: tool_classes.keeps_only) did not do what it
              -- records: it backs a claim that says it noted, logged or saved (backs carries ",records,"),
              -- one about the note itself, or one of no class; "I've filed your glass claim" over crm.add_note,
              -- 理赔申请已提交 over claims.save_draft are not backed by it, whatever its text mentions
              WHEN p.keeps_only AND p.action IS NOT NULL AND strpos(coalesce(p.backs, ''), ',*,') = 0
                   AND strpos(coalesce(p.backs, ''), ',records,') = 0 AND p.names_object = 0 THEN FALSE
              -- a consequence (a refund, a payment, invitations) follows from a write of its classes,
              -- or from one whose arguments carry it (payment_id, attendees), or is the write itself
              -- (refunds.create, payments.schedule: the tool names it); a write about a thing that moves
              -- nothing (a quote: tool_classes.causes_nothing) causes none ("I've charged $588" over
              -- catering.quotes.create)
              WHEN p.follows = TRUE THEN (NOT p.causes_nothing
                                          AND (strpos(coalesce(p.backs, ''), ',' || coalesce(p.tool_action, '?') || ',') > 0
                                               OR p.mentions = TRUE))
                   OR p.names_follows = 1 OR p.names_object = 1
              -- a device (backs ends ",named,": [object_named]) is backed only by a write naming its kind or
              -- mentioning it: a thermostat's write backs no "the front door is locked"
              WHEN strpos(coalesce(p.backs, ''), ',named,') > 0 AND p.names_object = 0 AND p.mentions = FALSE THEN FALSE
              -- (fixg) ... and a write whose tool names it backs it whatever its verb: paying a fine clears it
              -- ("Your fine is cleared" over fines.pay), a lock's lock locks the door
              WHEN strpos(coalesce(p.backs, ''), ',named,') > 0 AND p.names_object = 1 THEN TRUE
              -- (unless its own call mentions the thing: reservations.create{check_in} books a room
              -- though hotel.booking.create names hotels, in a file that holds both agents' runs)
              WHEN p.is_named = 1 AND p.names_object = 0 AND p.mentions = FALSE THEN FALSE
              -- a tool about other things, whose call does not mention the claim's object either; but a
              -- message carries what a send claim names ("posted a note in #ops", "texted him the
              -- receipt" over chat.postMessage, sms.send): the thing sent is its content, not its object
              WHEN p.object IS NOT NULL AND p.objects <> ',,' AND p.names_object = 0 AND p.mentions = FALSE
                   AND NOT (p.action = 'send' AND p.tool_action = 'send') THEN FALSE
              WHEN p.action IS NULL OR strpos(coalesce(p.backs, ''), ',*,') > 0 OR p.tool_action IS NULL THEN TRUE
              ELSE strpos(coalesce(p.backs, ''), ',' || p.tool_action || ',') > 0
          END
)
SELECT * FROM fits
