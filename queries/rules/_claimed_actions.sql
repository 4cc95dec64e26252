-- id = "_claimed_actions"
-- title = "Turn model: each action a reply claims, and the write that backs it"
-- uses = ["_claimed_items", "_claim_fits", "_write_steps"]
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
-- nothing backs it (said_but_not_done counts it unbacked):
-- - paired: two claims of one class over one write ("Eggs and milk are on your
--   list, and coffee's on there too" over add_item(eggs, milk); 牛奶 + 大米 over
--   one place_order): each of its fitting writes mentions, in its arguments
--   or tool name, none of the words the claim names (claim_items.noun) and
--   some of another such claim's, which shares no word with it;
-- - other thing: its one fitting write fits it only by the broad class family
--   and names neither its object nor its words, while fitting another claim
--   of the reply, of another class and object, exactly (寄件单已建好 … 上门取件也
--   约好了 over one createShipment); also when the claim is of something new
--   and the write changed something else ("备注已改成…，可乐也加上了" over one
--   updateOrderRemark). A claim that names nothing of its own ("one of them
--   paid") restates and is never taken.
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
),
claim_words AS (
    -- each word a claim names (claim_items.noun, 'eggs|milk'), per distinct reply text
    SELECT text_id, clause_no, unnest(string_split(noun, '|')) AS word FROM claim_items WHERE noun IS NOT NULL
),
overlap AS (
    -- two claims of a text that share a word name one thing
    SELECT DISTINCT a.text_id, a.clause_no AS a_no, b.clause_no AS b_no
    FROM claim_words a
    JOIN claim_words b ON b.text_id = a.text_id AND b.word = a.word AND b.clause_no <> a.clause_no
),
candidates AS (
    -- reply texts where a write can be another claim's (per distinct text, far fewer than replies):
    -- two claims of one class naming different things no object group names, or a claim about a
    -- thing (or naming something new) beside a claim of another class
    SELECT DISTINCT b.text_id
    FROM claim_items b
    JOIN claim_items a ON a.text_id = b.text_id AND a.clause_no <> b.clause_no
    LEFT JOIN overlap o ON o.text_id = b.text_id AND o.a_no = a.clause_no AND o.b_no = b.clause_no
    WHERE NOT b.follows AND NOT a.follows
      AND ((a.noun IS NOT NULL AND b.noun IS NOT NULL AND a.action = b.action AND o.text_id IS NULL
            AND a.object IS NULL AND b.object IS NULL)
           OR (a.action <> b.action
               AND (b.object IS NOT NULL OR (b.noun IS NOT NULL AND b.action IN ('create', 'book')))))
),
cand_fits AS (
    -- the claims of replies with such a text, and their fitting writes
    SELECT f.reply_id, f.clause_no, f.task_id, f.seq, f.tool, f.outcome, f.names_object, f.exact,
           i.action, i.object, i.follows, c.noun, c.text_id
    FROM candidates k
    JOIN claim_items c ON c.text_id = k.text_id
    JOIN claimed_items i ON i.text_id = c.text_id AND i.clause_no = c.clause_no
    JOIN claim_fits f ON f.reply_id = i.reply_id AND f.clause_no = i.clause_no
),
cand_claims AS (
    -- each of those claims' backing write as per_item chooses it, and how many writes fit it
    SELECT reply_id, clause_no,
           coalesce(max(CASE WHEN outcome = 'good' AND names_object = 1 THEN seq END),
                    max(CASE WHEN outcome = 'good' THEN seq END)) AS good_seq,
           max(CASE WHEN outcome = 'good' AND exact = 1 THEN 1 ELSE 0 END) AS exact,
           count(*) AS fits
    FROM cand_fits
    GROUP BY reply_id, clause_no
),
shared AS (
    -- those claims over a write that fits two claims of the reply or more
    SELECT f.*
    FROM cand_fits f
    JOIN (SELECT reply_id, seq FROM cand_fits GROUP BY reply_id, seq HAVING count(*) > 1) s
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
    LEFT JOIN overlap o ON o.text_id = b.text_id AND o.a_no = a.clause_no AND o.b_no = b.clause_no
    WHERE NOT b.follows AND NOT a.follows AND o.text_id IS NULL AND a.noun IS NOT NULL AND b.noun IS NOT NULL
      AND a.object IS NULL AND b.object IS NULL
),
other_thing AS (
    -- a claim whose one write fits it only by the family of classes (so it neither names nor
    -- mentions the claim's object), while fitting another claim of another class exactly: about
    -- another thing than that claim (寄件单已建好 … 上门取件也约好了), or naming something new over a
    -- write that changed something else ("备注已改成…，可乐也加上了"; "one of them paid" names nothing)
    SELECT DISTINCT a.reply_id, a.clause_no
    FROM shared a
    JOIN cand_claims ca ON ca.reply_id = a.reply_id AND ca.clause_no = a.clause_no
    JOIN cand_claims b ON b.reply_id = a.reply_id AND b.good_seq = a.seq AND b.clause_no <> a.clause_no
    JOIN cand_fits bf ON bf.reply_id = b.reply_id AND bf.clause_no = b.clause_no AND bf.seq = b.good_seq
    LEFT JOIN tool_classes t ON t.tool = a.tool
    WHERE ca.good_seq = a.seq AND ca.fits = 1 AND a.exact = 0 AND NOT a.follows
      AND b.exact = 1 AND a.action <> bf.action
      AND ((a.object IS NOT NULL AND a.object IS DISTINCT FROM bf.object)
           OR (a.noun IS NOT NULL AND a.action IN ('create', 'book') AND t.action NOT IN ('create', 'book')))
),
asked AS (
    -- the words to look for in each of those calls
    SELECT DISTINCT task_id, seq, noun FROM (
        SELECT task_id, seq, b_noun AS noun FROM pairs UNION ALL SELECT task_id, seq, a_noun FROM pairs) x
),
said AS (
    -- what each such call says: its arguments, in lower case
    SELECT w.task_id, w.seq, lower(coalesce(CAST(s.args AS VARCHAR), '')) AS said
    FROM (SELECT DISTINCT task_id, seq FROM asked) w
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
),
mentioned AS (
    -- whether the call mentions any of the claim's words (strpos: no pattern to compile per row)
    SELECT x.task_id, x.seq, x.noun, max(CASE WHEN strpos(d.said, x.word) > 0 THEN 1 ELSE 0 END) AS hit
    FROM (SELECT task_id, seq, noun, unnest(string_split(noun, '|')) AS word FROM asked) x
    JOIN said d ON d.task_id = x.task_id AND d.seq = x.seq
    GROUP BY x.task_id, x.seq, x.noun
),
taken_write AS (
    -- a claim's fitting write that mentions none of its words and some of the other claim's
    SELECT DISTINCT p.reply_id, p.clause_no, p.seq
    FROM pairs p
    JOIN mentioned mb ON mb.task_id = p.task_id AND mb.seq = p.seq AND mb.noun = p.b_noun
    JOIN mentioned ma ON ma.task_id = p.task_id AND ma.seq = p.seq AND ma.noun = p.a_noun
    WHERE mb.hit = 0 AND ma.hit = 1
),
paired AS (
    -- claims every fitting write of which was for another claim
    SELECT t.reply_id, t.clause_no
    FROM taken_write t
    JOIN cand_claims c ON c.reply_id = t.reply_id AND c.clause_no = t.clause_no
    GROUP BY t.reply_id, t.clause_no, c.fits
    HAVING count(*) = c.fits
)
SELECT i.reply_id, i.task_id, i.text_id, i.reply_time, i.clause_no, i.action, i.object, i.follows, i.clause, i.has_vals,
       CASE WHEN i.reply_index IS NULL OR i.has_recent = 1 THEN 1 ELSE 0 END AS own_window,
       CASE WHEN p.good_seq IS NOT NULL THEN 'backed' WHEN p.last_seq IS NOT NULL THEN 'bad' ELSE 'none' END AS status,
       coalesce(p.good_seq, p.last_seq) AS backing_seq, coalesce(p.exact, 0) AS exact,
       w.tool AS backing_tool, t.action AS backing_action,
       CASE WHEN pd.clause_no IS NOT NULL OR o.clause_no IS NOT NULL THEN 1 ELSE 0 END AS taken
FROM claimed_items i
LEFT JOIN per_item p ON p.reply_id = i.reply_id AND p.clause_no = i.clause_no
LEFT JOIN write_steps w ON w.task_id = i.task_id AND w.seq = coalesce(p.good_seq, p.last_seq)
LEFT JOIN tool_classes t ON t.tool = w.tool
LEFT JOIN paired pd ON pd.reply_id = i.reply_id AND pd.clause_no = i.clause_no
LEFT JOIN other_thing o ON o.reply_id = i.reply_id AND o.clause_no = i.clause_no
