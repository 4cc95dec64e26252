-- id = "_claim_candidates"
-- title = "Turn model: the claims whose write may have been for another claim of the reply"
-- uses = ["_claimed_items", "_claim_fits", "_claim_overlap"]
-- description = """
-- The claims of replies whose text has two claims that can share one write
-- (two claims of one class naming different things no object group names, or
-- a claim about a thing, or naming something new, beside a claim of another
-- class, or a claim naming words of its own beside a claim about another
-- thing or beside a claim telling an id), with each of their fitting writes: the few rows _claims_taken.sql
-- judges. Worked out per distinct reply text (claim_items), far fewer than
-- replies. A table of its own so every engine plans the judging over a
-- stored result, not over this join again and again (Spark ran out of heap
-- planning the one query).
-- """
WITH candidates AS (
    -- reply texts where a write can be another claim's (per distinct text, far fewer than replies):
    -- two claims of one class naming different things no object group names, or a claim about a
    -- thing (or naming something new) beside a claim of another class
    SELECT DISTINCT b.text_id
    FROM claim_items b
    JOIN claim_items a ON a.text_id = b.text_id AND a.clause_no <> b.clause_no
    LEFT JOIN claim_overlap o ON o.text_id = b.text_id AND o.a_no = a.clause_no AND o.b_no = b.clause_no
    WHERE (NOT b.follows AND NOT a.follows
           AND ((a.noun IS NOT NULL AND b.noun IS NOT NULL AND a.action = b.action AND o.text_id IS NULL
                 AND a.object IS NULL AND b.object IS NULL)
                OR (a.action <> b.action
                    AND (b.object IS NOT NULL OR (b.noun IS NOT NULL AND b.action IN ('create', 'book'))))))
       -- a claim naming words of its own beside a claim about another thing, of any class (a
       -- consequence too): the one write may say only the other ("enrolled in paperless billing"
       -- beside a payment made over one payments.create)
       OR (NOT b.follows AND b.noun IS NOT NULL AND o.text_id IS NULL
           AND (a.object IS NOT NULL OR a.noun IS NOT NULL))
       -- ... or beside a claim that tells the id of what it made (约好了…预约号 BK-30817, 储物柜也租好了):
       -- the write that returned that id may say only that one
       OR (NOT b.follows AND b.noun IS NOT NULL AND o.text_id IS NULL AND NOT a.follows
           AND strpos(coalesce(a.vals, ''), '"type": "id"') > 0)
),
cand_fits AS (
    -- the claims of replies with such a text, and their fitting writes
    SELECT f.reply_id, f.clause_no, f.task_id, f.seq, f.tool, f.outcome, f.names_object, f.mentions, f.exact,
           i.action, i.object, i.follows, i.backs, c.noun, c.text_id
    FROM candidates k
    JOIN claim_items c ON c.text_id = k.text_id
    JOIN claimed_items i ON i.text_id = c.text_id AND i.clause_no = c.clause_no
    JOIN claim_fits f ON f.reply_id = i.reply_id AND f.clause_no = i.clause_no
)
SELECT * FROM cand_fits
