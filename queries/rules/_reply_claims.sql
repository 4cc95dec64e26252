-- id = "_reply_claims"
-- title = "Turn model: which replies claim that an action was completed"
-- uses = ["_turn_replies"]
-- description = """
-- A reply claims completion when some clause of it does and no later clause
-- takes it back (queries/reading/clauses.py, lexicon queries/lexicon/claims.toml
-- extended by [lexicon] in trace-audit.toml). Each distinct reply text is read
-- once, into reply_readings: is_claim, admits_failure (some clause reports a
-- failure or a negated action), verdict (claim | retracted | no_claim) and the
-- classified clauses (kind, action class, object) as JSON.
-- """
SELECT r.*, rr.text_id, coalesce(rr.is_claim, FALSE) AS is_claim, coalesce(rr.admits_failure, FALSE) AS admits_failure,
       rr.verdict, rr.clauses
FROM turn_replies r
LEFT JOIN reply_readings rr ON rr.reply_text = r.reply_text
