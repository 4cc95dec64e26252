-- id = "said_but_not_done"
-- title = "The reply claims it was done, the trace shows it was not"
-- severity = "block"
-- evidence_steps = "write"
-- uses = ["_reply_claims", "_write_steps", "_turn_outcomes", "_claimed_actions", "_write_tool_names"]
-- description = """
-- The assistant's reply for a turn claims an action was completed (see
-- _reply_claims.sql and the claim lexicon), and the turn has no write step
-- that is success AND verified and actually created or changed something.
-- kind: not_executed (no task, or no write step that started), failed,
-- unverified (success but no confirming read-back), not_created (success, but
-- the detail, error or result says conflict / already exists / not created),
-- partial (some writes landed, another did not, and no clause of the reply
-- reports a failure).
-- Each claimed action is checked on its own (_claimed_actions.sql): a reply
-- that claims an action no write of the turn even attempted ("three checked
-- bags have been added" when only the flight was updated) is partial when
-- another claimed action is backed by a good write, not_executed when none
-- is; the evidence names the first such claim (unbacked_claim). So is a claim
-- whose only write stored another claim's value (value_checks verdict
-- unbacked: two reminders told, one written), or whose writes were for other
-- claims of the reply (claimed_actions.taken: "coffee's on there too" over
-- add_item(eggs, milk)).
-- A reply with no claim the lexicon knows and no mark of any kind (no failure
-- admitted, nothing denied, asked, offered, hedged, deferred or contrasted:
-- verdict unmarked, queries/reading/unmarked.py) is read as a claim over a
-- turn whose writes all went wrong ("All yours from 8pm" over a failed
-- booking): read_as says which reading made the finding (and the message).
-- A reply whose every claim tells a state as found (verdict report,
-- queries/reading/reported.py: "Your flight is confirmed for 9:00 AM", 订单已于
-- 12 月 3 日签收, "Found it — you're all set"), none as the reply's own doing,
-- is a report when its window read something that worked and wrote nothing;
-- over writes it is a claim as any other (read_as: 'tells it as a settled
-- state'). A present state with no process word and no lookup named (verdict
-- state: "You're booked in with Dr Patel on Friday") reports only a read of one
-- record (tool_classes.reads_record: get_appointment, lookup_booking); after a
-- search or an availability check alone (search_slots, list_availability) it
-- claims what was only looked for.
-- Where the source records message positions (one task = a whole chat, as in
-- tau-bench), a reply is judged by the write calls made since the task's
-- previous reply and before it: an earlier failure was for an earlier reply
-- to admit. A claim with no write call since the previous reply (a restated
-- result, or a state the agent looked up) is judged by the whole task's
-- writes as for sources without positions, but never as partial.
-- """
-- message = "reply {read_as} but the turn is {kind}: {reply}"
WITH claims AS (
    -- only what the judgement needs: the reply's text and who said it are joined to the findings
    -- at the end (a fifth of the claims), not carried through every join
    SELECT task_id, reply_id, reply_index, prev_reply_index, admits_failure, verdict = 'unmarked' AS unmarked,
           verdict = 'report' AS report, verdict = 'state' AS state
    FROM reply_claims WHERE is_claim = TRUE OR verdict = 'unmarked'
),
looked_up AS (
    -- replies that tell states as found (verdict report): did their window read something that worked?
    -- (since the previous reply where positions exist, else the whole task); record: one of those reads
    -- fetched one record (tool_classes.reads_record), which a present state told (verdict state) needs
    SELECT c.reply_id, 1 AS looked, max(CASE WHEN t.reads_record THEN 1 ELSE 0 END) AS record
    FROM claims c
    JOIN steps s ON s.task_id = c.task_id
    LEFT JOIN write_tool_names n ON n.tool = s.tool
    LEFT JOIN tool_classes t ON t.tool = s.tool
    WHERE (c.report OR c.state) AND s.tool IS NOT NULL AND n.tool IS NULL AND s.status = 'success'
      AND (c.reply_index IS NULL
           OR (TRY_CAST(json_extract_string(s.metadata, '$.message_index') AS INTEGER) < c.reply_index
               AND (c.prev_reply_index IS NULL
                    OR TRY_CAST(json_extract_string(s.metadata, '$.message_index') AS INTEGER) >= c.prev_reply_index)))
    GROUP BY c.reply_id
),
per_task AS (
    -- the turn's own write counts, as _turn_outcomes.sql states them
    SELECT task_id, writes, good, open_bad, executed, not_created, unverified FROM turn_outcomes
),
before_reply AS (
    -- positioned replies: the write calls made since the task's previous reply and before this one
    SELECT c.reply_id, w.tool, w.seq, w.outcome, 1 AS recent
    FROM claims c
    JOIN write_steps w ON w.task_id = c.task_id
    WHERE c.reply_index IS NOT NULL AND w.msg_index IS NOT NULL AND w.msg_index < c.reply_index
      AND (c.prev_reply_index IS NULL OR w.msg_index >= c.prev_reply_index)
),
recent_good AS (
    SELECT reply_id, tool, max(seq) AS last_good
    FROM before_reply WHERE recent = 1 AND outcome = 'good'
    GROUP BY reply_id, tool
),
per_reply AS (
    SELECT b.reply_id, sum(b.recent) AS recent_writes,
           sum(CASE WHEN b.recent = 1 AND b.outcome = 'good' THEN 1 ELSE 0 END) AS recent_good,
           sum(CASE WHEN b.recent = 1 AND b.outcome NOT IN ('good', 'running')
                         AND coalesce(g.last_good, 0) < b.seq THEN 1 ELSE 0 END) AS recent_open_bad,
           sum(CASE WHEN b.recent = 1 AND b.outcome <> 'not_started' THEN 1 ELSE 0 END) AS recent_executed,
           sum(CASE WHEN b.recent = 1 AND b.outcome = 'not_created' THEN 1 ELSE 0 END) AS recent_not_created,
           sum(CASE WHEN b.recent = 1 AND b.outcome = 'unverified' THEN 1 ELSE 0 END) AS recent_unverified
    FROM before_reply b
    LEFT JOIN recent_good g ON g.reply_id = b.reply_id AND g.tool = b.tool
    GROUP BY b.reply_id
),
spent AS (
    -- a claim whose write already stored another claim's value (value_checks: unbacked) ...
    SELECT DISTINCT reply_id, clause_no, 1 AS spent FROM value_checks WHERE verdict = 'unbacked'
    UNION
    -- ... or whose writes were for other claims of the reply (_claimed_actions.sql: taken)
    SELECT reply_id, clause_no, 1 FROM claimed_actions WHERE taken = 1
),
per_claim AS (
    -- claimed actions (clauses with an action class), backed or never attempted
    SELECT a.reply_id,
           sum(CASE WHEN a.status = 'backed' AND coalesce(s.spent, 0) = 0 THEN 1 ELSE 0 END) AS backed_claims,
           sum(CASE WHEN a.status = 'none' OR coalesce(s.spent, 0) = 1 THEN 1 ELSE 0 END) AS unbacked_claims,
           min(CASE WHEN a.status = 'none' OR coalesce(s.spent, 0) = 1 THEN a.clause_no END) AS first_unbacked
    FROM claimed_actions a
    LEFT JOIN spent s ON s.reply_id = a.reply_id AND s.clause_no = a.clause_no
    WHERE (a.action IS NOT NULL OR coalesce(s.spent, 0) = 1) AND a.own_window = 1
    GROUP BY a.reply_id
),
counted AS (
    SELECT c.task_id, c.reply_id,
           c.reply_index, c.prev_reply_index, c.admits_failure, c.unmarked, c.report, c.state,
           CASE WHEN coalesce(p.writes, 0) = 0 THEN coalesce(l.looked, 0) ELSE 0 END AS read_only,
           CASE WHEN coalesce(p.writes, 0) = 0 THEN coalesce(l.record, 0) ELSE 0 END AS read_record, 1 AS has_window,
           coalesce(p.good, 0) AS good, coalesce(p.open_bad, 0) AS open_bad, coalesce(p.executed, 0) AS executed,
           coalesce(p.not_created, 0) AS not_created, coalesce(p.unverified, 0) AS unverified
    FROM claims c
    LEFT JOIN per_task p ON p.task_id = c.task_id
    LEFT JOIN looked_up l ON l.reply_id = c.reply_id
    WHERE c.reply_index IS NULL
    UNION ALL
    SELECT c.task_id, c.reply_id,
           c.reply_index, c.prev_reply_index, c.admits_failure, c.unmarked, c.report, c.state,
           CASE WHEN coalesce(r.recent_writes, 0) = 0 THEN coalesce(l.looked, 0) ELSE 0 END,
           CASE WHEN coalesce(r.recent_writes, 0) = 0 THEN coalesce(l.record, 0) ELSE 0 END,
           CASE WHEN coalesce(r.recent_writes, 0) > 0 THEN 1 ELSE 0 END,
           CASE WHEN coalesce(r.recent_writes, 0) > 0 THEN r.recent_good ELSE coalesce(p.good, 0) END,
           CASE WHEN coalesce(r.recent_writes, 0) > 0 THEN r.recent_open_bad ELSE 0 END,
           CASE WHEN coalesce(r.recent_writes, 0) > 0 THEN r.recent_executed ELSE coalesce(p.executed, 0) END,
           CASE WHEN coalesce(r.recent_writes, 0) > 0 THEN r.recent_not_created ELSE coalesce(p.not_created, 0) END,
           CASE WHEN coalesce(r.recent_writes, 0) > 0 THEN r.recent_unverified ELSE coalesce(p.unverified, 0) END
    FROM claims c
    LEFT JOIN per_reply r ON r.reply_id = c.reply_id
    LEFT JOIN per_task p ON p.task_id = c.task_id
    LEFT JOIN looked_up l ON l.reply_id = c.reply_id
    WHERE c.reply_index IS NOT NULL
),
claimed AS (
    SELECT k.task_id, k.reply_id,
           k.reply_index, k.prev_reply_index, k.admits_failure, k.unmarked, k.report, k.state, k.read_only,
           k.read_record, k.has_window, k.good, k.open_bad, k.executed, k.not_created,
           k.unverified,
           coalesce(pc.backed_claims, 0) AS backed_claims, coalesce(pc.unbacked_claims, 0) AS unbacked_claims,
           ca.clause AS unbacked_claim, ca.action AS unbacked_action, ca.object AS unbacked_object
    FROM counted k
    LEFT JOIN per_claim pc ON pc.reply_id = k.reply_id
    LEFT JOIN claimed_actions ca ON ca.reply_id = k.reply_id AND ca.clause_no = pc.first_unbacked
),
judged AS (
    SELECT k.*,
           CASE
               -- an unmarked reply (no claim the lexicon knows, nothing admitted, asked, offered,
               -- hedged or deferred) is a claim only over writes that all went wrong: since the
               -- previous reply where positions exist (else it may restate a lookup), and with no
               -- good write beside them (what it says might be about that one)
               -- states told as found (a status, or what a named lookup found; no doing of the reply's own):
               -- a report over a window that read something and wrote nothing; over writes a claim as any
               -- other ("Your spa slot is confirmed" over a failed booking, beside "I haven't added the massage")
               WHEN k.report AND k.read_only = 1 THEN 'ok'
               -- a present state told ("You're booked in with Dr Patel on Friday"): a report of the one record
               -- read (get_appointment), a false claim over a search or an availability check alone
               WHEN k.state AND k.read_record = 1 THEN 'ok'
               WHEN k.unmarked AND (k.task_id IS NULL OR k.has_window = 0 OR k.good > 0
                                    OR (k.executed = 0 AND k.open_bad = 0)) THEN 'ok'
               WHEN k.task_id IS NULL OR k.executed = 0 THEN 'not_executed'
               WHEN k.good > 0 AND k.open_bad > 0 AND NOT k.admits_failure THEN 'partial'
               WHEN k.good > 0 AND k.unbacked_claims > 0 AND k.backed_claims > 0 THEN 'partial'
               WHEN k.good > 0 AND k.unbacked_claims > 0 THEN 'not_executed'
               WHEN k.good > 0 THEN 'ok'
               WHEN k.not_created > 0 THEN 'not_created'
               WHEN k.unverified > 0 THEN 'unverified'
               ELSE 'failed'
           END AS kind
    FROM claimed k
)
SELECT j.task_id, r.conversation_id, r.user_id, r.reply_time AS event_time,
       j.kind, r.reply_text AS reply, j.reply_id AS message_id, r.link, j.good AS good_writes,
       j.open_bad AS open_bad_writes, j.reply_index, j.prev_reply_index AS since_index,
       j.unbacked_claim, j.unbacked_action, j.unbacked_object,
       CASE WHEN j.unmarked THEN 'states it as done and admits nothing'
            WHEN j.report OR j.state THEN 'tells it as a settled state' ELSE 'claims completion' END AS read_as
FROM judged j
JOIN reply_claims r ON r.reply_id = j.reply_id AND r.task_id IS NOT DISTINCT FROM j.task_id
                   AND (r.is_claim OR r.verdict = 'unmarked')
WHERE j.kind <> 'ok'
