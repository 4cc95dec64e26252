-- id = "_claim_overlap"
-- title = "Turn model: two claims of a reply text that name one thing"
-- uses = ["_claim_words"]
-- description = """
-- One row per (text, claim a, claim b) whose named words share one: such
-- claims name one thing, so neither is "the other thing" of the other.
-- """
SELECT DISTINCT a.text_id, a.clause_no AS a_no, b.clause_no AS b_no
FROM claim_words a
JOIN claim_words b ON b.text_id = a.text_id AND b.word = a.word AND b.clause_no <> a.clause_no
