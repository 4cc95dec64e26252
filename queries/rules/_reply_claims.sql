-- id = "_reply_claims"
-- title = "Turn model: which replies claim that an action was completed"
-- uses = ["_turn_replies"]
-- description = """
-- A reply claims completion when the claim lexicon matches, it holds no honest
-- failure wording (an honest reply is never an incident, even when it also
-- reports the part that worked), and the claim is not hypothetical (after a
-- condition / offer cue in the same sentence, or asked as a question).
-- The lexicon is data: queries/lexicon/claims.toml, extended by [lexicon].
-- The other patterns run only on replies the claim pattern matched, and the
-- question pattern only on replies that hold a question mark.
-- """
SELECT c.*,
       CASE WHEN c.has_claim = TRUE
            THEN NOT (regexp_matches(c.reply_text, $honest_re)
                      OR regexp_matches(c.reply_text, $cue_claim_re)
                      OR ((c.reply_text LIKE '%?%' OR c.reply_text LIKE '%？%')
                          AND regexp_matches(c.reply_text, $claim_question_re)))
            ELSE FALSE END AS is_claim
FROM (
    SELECT r.*, regexp_matches(r.reply_text, $claim_re) AS has_claim
    FROM turn_replies r
) c
