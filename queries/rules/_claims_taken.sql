-- id = "_claims_taken"
-- title = "Turn model: claims whose writes were for other claims of the reply"
-- uses = ["_claim_candidates", "_claim_pairs", "_claim_overlap"]
-- description = """
-- One row per claim (reply_id, clause_no) that nothing backs because its
-- writes were for other claims of the same reply (said_but_not_done counts
-- it unbacked; _claimed_actions.sql's taken):
-- - paired: two claims of one class over one write ("Eggs and milk are on your
--   list, and coffee's on there too" over add_item(eggs, milk); 牛奶 + 大米 over
--   one place_order): each of its fitting writes mentions, in its tool name or arguments,
--   none of the words the claim names (claim_items.noun) and some of another
--   such claim's, which shares no word with it;
-- - other thing: its one fitting write fits it only by the broad class family
--   and names neither its object nor its words, while fitting another claim
--   of the reply, of another class and object, exactly (寄件单已建好 … 上门取件也
--   约好了 over one createShipment); also when the claim is of something new
--   and the write changed something else ("备注已改成…，可乐也加上了" over one
--   updateOrderRemark), or when neither the call nor what it returned says
--   any of the words the claim names that it could say (已删除「周会纪要」
--   beside 新建了待办 over one rename of a list). A claim that names nothing of its own ("one of
--   them paid") restates and is never taken.
-- - unsaid: one write that could back two claims backs the one it says (its
--   object, its words, or the id it tells: 约好了…预约号 BK-30817 over the write
--   that returned BK-30817); the other, whose words it could say and does not,
--   is taken (储物柜也给你租好了).
-- - also: a claim told as one more thing ("… too", 也, 一并, 并已…) over the one write of an earlier
--   claim of the reply that says nothing of it (体内驱虫也已一并加到这次就诊里 over one
--   appointments.create for a vaccine), also beside a headline of its class (预约成功 … 油烟机清洗也加上了).
-- """
WITH other_words AS (
    -- a claim that fits its write only by the family of classes, and the words it names
    SELECT DISTINCT task_id, seq, noun FROM claim_candidates WHERE exact = 0 AND NOT follows AND noun IS NOT NULL
),
other_said AS (
    -- what those calls say and returned, in lower case
    SELECT w.task_id, w.seq, lower(coalesce(CAST(s.args AS VARCHAR), '') || ' ' || coalesce(CAST(s.result AS VARCHAR), '')) AS said
    FROM (SELECT DISTINCT task_id, seq FROM other_words) w
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
),
unmentioned AS (
    -- a write that says none of the claim's words, in its call or in what it returned: it was about
    -- something else ("deleted 'Q3 recap'" over a rename of a list; 已删除「周会纪要」 over a rename
    -- to 工作 · 12月). Only words the write could have said count: a Chinese word against a call
    -- that has no Chinese in it (deviceId: ac_livingroom_01 for 客厅空调) says nothing either way.
    SELECT x.task_id, x.seq, x.noun
    FROM (SELECT task_id, seq, noun, unnest(string_split(noun, '|')) AS word FROM other_words) x
    JOIN other_said d ON d.task_id = x.task_id AND d.seq = x.seq
    WHERE regexp_matches(x.word, '^[ -~]+$') OR regexp_matches(d.said, '[一-鿿]')
    GROUP BY x.task_id, x.seq, x.noun
    HAVING max(CASE WHEN strpos(d.said, x.word) > 0 THEN 1 ELSE 0 END) = 0
),
cand_claims AS (
    -- each of those claims' backing write as per_item chooses it, and how many writes fit it
    SELECT reply_id, clause_no,
           coalesce(max(CASE WHEN outcome = 'good' AND names_object = 1 THEN seq END),
                    max(CASE WHEN outcome = 'good' THEN seq END)) AS good_seq,
           max(CASE WHEN outcome = 'good' AND exact = 1 THEN 1 ELSE 0 END) AS exact,
           count(*) AS fits
    FROM claim_candidates
    GROUP BY reply_id, clause_no
),
shared AS (
    -- those claims over a write that fits two claims of the reply or more
    SELECT f.*
    FROM claim_candidates f
    JOIN (SELECT reply_id, seq FROM claim_candidates GROUP BY reply_id, seq HAVING count(*) > 1) s
      ON s.reply_id = f.reply_id AND s.seq = f.seq
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
    JOIN claim_candidates bf ON bf.reply_id = b.reply_id AND bf.clause_no = b.clause_no AND bf.seq = b.good_seq
    LEFT JOIN tool_classes t ON t.tool = a.tool
    LEFT JOIN unmentioned u ON u.task_id = a.task_id AND u.seq = a.seq AND u.noun = a.noun
    WHERE ca.good_seq = a.seq AND ca.fits = 1 AND a.exact = 0 AND NOT a.follows
      AND b.exact = 1 AND a.action <> bf.action
      AND ((a.object IS NOT NULL AND a.object IS DISTINCT FROM bf.object)
           OR (a.noun IS NOT NULL AND a.action IN ('create', 'book') AND t.action NOT IN ('create', 'book'))
           OR u.task_id IS NOT NULL)
),
told_words AS (
    -- the words each claim over a good write of two claims or more names
    SELECT DISTINCT task_id, seq, noun FROM shared WHERE outcome = 'good' AND noun IS NOT NULL
),
told_said AS (
    -- what such a write says: its tool's name, its call and what it returned, in lower case
    SELECT w.task_id, w.seq,
           lower(s.tool || ' ' || coalesce(CAST(s.args AS VARCHAR), '') || ' ' || coalesce(CAST(s.result AS VARCHAR), '')) AS said
    FROM (SELECT DISTINCT task_id, seq FROM told_words) w
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
),
told_hits AS (
    -- whether the write says any of a claim's words, of those it could say (an English word of three
    -- letters or more; a Chinese word only where the write has Chinese in it; no such word, no row:
    -- it could say none, so it says nothing either way)
    SELECT x.task_id, x.seq, x.noun,
           max(CASE WHEN strpos(d.said, x.word) > 0 THEN 1 ELSE 0 END) AS hit,
           -- said in another form: an English word of five letters or more by its first five
           -- ("modification" over modify_pending_order_items)
           max(CASE WHEN strpos(d.said, x.word) > 0
                     OR (length(x.word) >= 5 AND regexp_matches(x.word, '^[a-z]+$')
                         AND strpos(d.said, regexp_extract(x.word, '^([a-z]{5})', 1)) > 0)
                    THEN 1 ELSE 0 END) AS near
    FROM (SELECT task_id, seq, noun, unnest(string_split(noun, '|')) AS word FROM told_words) x
    JOIN told_said d ON d.task_id = x.task_id AND d.seq = x.seq
    WHERE (regexp_matches(x.word, '^[ -~]+$') AND length(x.word) >= 3)
       OR (NOT regexp_matches(x.word, '^[ -~]+$') AND regexp_matches(d.said, '[一-鿿]'))
    GROUP BY x.task_id, x.seq, x.noun
),
tool_in_claim AS (
    -- a claim that says the word its write's tool is named by ("Exchanged to the …" over
    -- exchange_delivered_order_items): the write says what the claim did
    SELECT DISTINCT x.reply_id, x.clause_no, x.seq
    FROM (SELECT a.reply_id, a.clause_no, a.seq, lower(c.clause) AS clause,
                 unnest(string_split(replace(replace(replace(replace(lower(a.tool), '.', '_'), '/', '_'), '-', '_'), ' ', '_'), '_')) AS word
          FROM (SELECT DISTINCT reply_id, clause_no, seq, tool, text_id FROM shared WHERE outcome = 'good') a
          JOIN claim_items c ON c.text_id = a.text_id AND c.clause_no = a.clause_no) x
    WHERE length(x.word) >= 4
      AND strpos(x.clause, CASE WHEN length(x.word) > 5 THEN regexp_extract(x.word, '^([a-z]{5})', 1) ELSE x.word END) > 0
      AND regexp_matches(x.word, '^[a-z]+$')
),
told_id_said AS (
    -- a claim whose write holds the id it tells (约好了…预约号 BK-30817 over a write that returned
    -- BK-30817): the write says that claim, though the claim names no word of its own
    SELECT DISTINCT x.reply_id, x.clause_no, x.seq
    FROM (SELECT a.reply_id, a.clause_no, a.task_id, a.seq,
                 regexp_extract(c.vals, '"type": "id"[^{}]*?"value": "([^"]+)"', 1) AS told_id
          FROM (SELECT DISTINCT reply_id, clause_no, task_id, seq, text_id FROM shared WHERE outcome = 'good') a
          JOIN claim_items c ON c.text_id = a.text_id AND c.clause_no = a.clause_no
          WHERE strpos(coalesce(c.vals, ''), '"type": "id"') > 0) x
    JOIN steps s ON s.task_id = x.task_id AND s.seq = x.seq
    WHERE length(x.told_id) >= 4
      AND strpos(coalesce(CAST(s.args AS VARCHAR), '') || ' ' || coalesce(CAST(s.result AS VARCHAR), ''), x.told_id) > 0
),
unsaid AS (
    -- one write that could back two claims backs the one it says: a claim whose one write says none
    -- of its words (tool name, call, returned record) and neither names nor mentions its object, while
    -- saying another claim's object or words, was not made by it ("you're enrolled in paperless
    -- billing" beside a payment over one payments.create; 保价 beside a pickup over one
    -- express.pickup.create). A write that says neither claim (update_account with opaque
    -- arguments) decides nothing: both stay backed; a headline of no class ("You're good to go") is
    -- about the whole reply, and a generic one ("processed", "handled") about whatever was done:
    -- never taken.
    SELECT DISTINCT a.reply_id, a.clause_no
    FROM shared a
    JOIN cand_claims ca ON ca.reply_id = a.reply_id AND ca.clause_no = a.clause_no AND ca.good_seq = a.seq AND ca.fits = 1
    JOIN told_hits ha ON ha.task_id = a.task_id AND ha.seq = a.seq AND ha.noun = a.noun AND ha.near = 0
    JOIN shared b ON b.reply_id = a.reply_id AND b.seq = a.seq AND b.clause_no <> a.clause_no AND b.outcome = 'good'
    LEFT JOIN told_hits hb ON hb.task_id = b.task_id AND hb.seq = b.seq AND hb.noun = b.noun
    LEFT JOIN claim_overlap o ON o.text_id = a.text_id AND o.a_no = b.clause_no AND o.b_no = a.clause_no
    LEFT JOIN tool_in_claim tc ON tc.reply_id = a.reply_id AND tc.clause_no = a.clause_no AND tc.seq = a.seq
    LEFT JOIN told_id_said bi ON bi.reply_id = b.reply_id AND bi.clause_no = b.clause_no AND bi.seq = b.seq
    WHERE tc.reply_id IS NULL AND NOT a.follows AND a.action IS NOT NULL AND strpos(coalesce(a.backs, ''), ',*,') = 0 AND a.outcome = 'good' AND a.names_object = 0 AND NOT coalesce(a.mentions, FALSE)
      AND o.text_id IS NULL
      AND (b.names_object = 1 OR coalesce(b.mentions, FALSE) OR hb.hit = 1 OR bi.reply_id IS NOT NULL)
),
also_more AS (
    -- (fixc) a claim told as one more thing beside another (",also," in backs: "… added the bags too",
    -- 退票保障也帮您加上了, 并已提交财务审批) over the one write that backs an earlier claim of the reply,
    -- naming a thing of its own that shares no word with it: the write was the first one's when it says
    -- none of this claim's words (of those it could say: a Chinese word against a call with no Chinese in
    -- it says nothing either way, and then the reply's own "also" decides), neither names nor mentions
    -- its object, and its tool is not named by a word of the claim. Only a thing made or booked: a
    -- second change told over one write may be what its call set (工单已创建，网络组的排班也已调整好 over
    -- itsm.ticket.create {assignment_group}). Two writes that could back it, a consequence, or a claim
    -- naming nothing of its own ("it's all set too") are never taken.
    SELECT DISTINCT a.reply_id, a.clause_no
    FROM shared a
    JOIN cand_claims ca ON ca.reply_id = a.reply_id AND ca.clause_no = a.clause_no AND ca.good_seq = a.seq AND ca.fits = 1
    JOIN shared b ON b.reply_id = a.reply_id AND b.seq = a.seq AND b.clause_no < a.clause_no AND b.outcome = 'good'
    JOIN cand_claims cb ON cb.reply_id = b.reply_id AND cb.clause_no = b.clause_no AND cb.good_seq = a.seq
    LEFT JOIN told_hits ha ON ha.task_id = a.task_id AND ha.seq = a.seq AND ha.noun = a.noun
    LEFT JOIN claim_overlap o ON o.text_id = a.text_id AND o.a_no = b.clause_no AND o.b_no = a.clause_no
    LEFT JOIN tool_in_claim tc ON tc.reply_id = a.reply_id AND tc.clause_no = a.clause_no AND tc.seq = a.seq
    WHERE strpos(coalesce(a.backs, ''), ',also,') > 0 AND strpos(coalesce(b.backs, ''), ',also,') = 0
      AND a.outcome = 'good' AND NOT a.follows AND NOT b.follows AND a.action IN ('create', 'book') AND a.noun IS NOT NULL
      -- (fixg) the earlier claim may name nothing of its own: a headline of its class ("Booked!", 预约成功，… ；
      -- 油烟机清洗也加上了 over one hs_create_order) is the thing the write made, and the claim told as one
      -- more beside it is another; only a headline of no class ("Done!", 搞定) says nothing to be one more beside
      AND (b.noun IS NOT NULL OR b.object IS NOT NULL OR b.action IS NOT NULL)
      AND a.names_object = 0 AND NOT coalesce(a.mentions, FALSE) AND coalesce(ha.near, 0) = 0
      AND o.text_id IS NULL AND tc.reply_id IS NULL
),
asked AS (
    -- the words to look for in each of those calls
    SELECT DISTINCT task_id, seq, noun FROM (
        SELECT task_id, seq, b_noun AS noun FROM claim_pairs UNION ALL SELECT task_id, seq, a_noun FROM claim_pairs) x
),
said AS (
    -- what each such call says: its tool's name and its arguments, in lower case (lines.roaming.enable
    -- says roaming though its arguments name only the line)
    SELECT w.task_id, w.seq, lower(s.tool || ' ' || coalesce(CAST(s.args AS VARCHAR), '')) AS said
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
    FROM claim_pairs p
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
SELECT reply_id, clause_no FROM paired
UNION
SELECT reply_id, clause_no FROM other_thing
UNION
SELECT reply_id, clause_no FROM unsaid
UNION
SELECT reply_id, clause_no FROM also_more
