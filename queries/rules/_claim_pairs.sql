-- id = "_claim_pairs"
-- title = "Turn model: two claims of one class over one write, naming different things"
-- uses = ["_claim_candidates", "_claim_overlap"]
-- description = """
-- One row per (claim b, write, claim a) where two claims of a reply of one
-- action class fit one write, each names things no object group names
-- (claim_items.noun) and they share no word ("Eggs and milk are on your list,
-- and coffee's on there too"): b may be the claim the write was not for;
-- _claims_taken.sql looks for the words of each in the write's arguments. A
-- claim about an order, a flight, a cabin is left to the object groups: a
-- write's arguments name those by codes, not words. A table of its own so
-- every engine plans the judging over stored rows (Spark ran out of heap
-- planning one query with these steps inlined several times over).
-- """
WITH shared AS (
    -- those claims over a write that fits two claims of the reply or more
    SELECT f.*
    FROM claim_candidates f
    JOIN (SELECT reply_id, seq FROM claim_candidates GROUP BY reply_id, seq HAVING count(*) > 1) s
      ON s.reply_id = f.reply_id AND s.seq = f.seq
),
pairs AS (
    -- two claims of one class over one write, naming different things no object group names ("Eggs
    -- and milk are on your list, and coffee's on there too"): b may be the one the write was not for.
    -- A claim about an order, a flight, a cabin is left to the object groups: a write's
    -- arguments name those by codes, not words.
    SELECT b.reply_id, b.clause_no, b.task_id, b.seq, b.noun AS b_noun, a.noun AS a_noun
    FROM shared b
    JOIN shared a ON a.reply_id = b.reply_id AND a.seq = b.seq AND a.clause_no <> b.clause_no AND a.action = b.action
    LEFT JOIN claim_overlap o ON o.text_id = b.text_id AND o.a_no = a.clause_no AND o.b_no = b.clause_no
    WHERE NOT b.follows AND NOT a.follows AND o.text_id IS NULL AND a.noun IS NOT NULL AND b.noun IS NOT NULL
      AND a.object IS NULL AND b.object IS NULL
)
SELECT * FROM pairs
