-- id = "_reply_claims"
-- title = "Turn model: which replies claim that an action was completed"
-- description = """
-- A reply claims completion when the claim lexicon matches, it holds no honest
-- failure wording (an honest reply is never an incident, even when it also
-- reports the part that worked), and the claim is not hypothetical (after a
-- condition / offer cue in the same sentence, or asked as a question).
-- The lexicon is data: queries/lexicon/claims.toml, extended by [lexicon].
-- """
SELECT c.*,
       (c.has_claim AND NOT c.has_honest AND NOT c.has_hypothetical) AS is_claim
FROM (
    SELECT r.*,
           regexp_matches(r.reply_text, $claim_re) AS has_claim,
           regexp_matches(r.reply_text, $honest_re) AS has_honest,
           (regexp_matches(r.reply_text, $cue_claim_re)
            OR CASE WHEN regexp_matches(r.reply_text, '[?？]')
                    THEN regexp_matches(r.reply_text, $claim_question_re) ELSE FALSE END) AS has_hypothetical
    FROM turn_replies r
) c
