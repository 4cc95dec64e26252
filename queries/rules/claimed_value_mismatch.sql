-- id = "claimed_value_mismatch"
-- title = "The reply told the user a value the write did not store"
-- severity = "block"
-- evidence_steps = "none"
-- uses = ["_turn_replies"]
-- description = """
-- Persisted, but not what was told: a completion clause of the reply states a
-- value (a time or date, an amount, a count, a choice such as a cabin class,
-- quoted content) and the write that backs that claim stored another.
-- The stored value is the best evidence of what the database holds: a
-- read-back recorded on the step ("remind_at differs (expected 07:00, got
-- 23:00)"), else the record the write returned, else its arguments. A value
-- is compared only with stored fields of its own kind; a reply that states no
-- value of a field is not judged on it. Relative times ("tomorrow at 8",
-- 明早8点) are resolved against the reply's time in the file's zone, and a
-- stored time with an offset is also read in that zone. Comparisons are made
-- once per run by queries/reading/value_checks.py (value_checks).
-- kind: mismatch. One finding per reply and field.
-- """
-- message = "the reply told {field} = {told}, the write stored {stored} ({stored_from}): {reply}"
WITH firsts AS (
    -- one finding per reply and field: its first write, then its first told value
    SELECT v.reply_id, v.task_id, v.field, v.seq, v.tool, v.value_type, v.told, v.written, v.stored, v.stored_from,
           row_number() OVER (PARTITION BY v.reply_id, v.field ORDER BY v.seq, v.told, v.stored) AS rn
    FROM value_checks v
    WHERE v.check_kind = 'told' AND v.verdict = 'mismatch'
)
SELECT f.task_id, r.conversation_id, r.user_id, f.seq, r.reply_time AS event_time,
       'mismatch' AS kind, f.field, f.value_type, f.told, f.written, f.stored, f.stored_from, f.tool,
       r.reply_text AS reply, f.reply_id AS message_id
FROM firsts f
JOIN turn_replies r ON r.reply_id = f.reply_id
WHERE f.rn = 1
