-- id = "final_answer_contains"
-- title = "The final answer lacks required content"
-- severity = "warn"
-- enabled = false
-- uses = ["_turn_replies"]
-- description = """
-- Output quality: every reply of the agents matched by agent_re must match
-- pattern (a regex, e.g. "数据来源|[Ss]ource:"). Off until configured.
-- agent_re is matched against the task's agent_version, then its source.
-- """
-- message = "reply does not match the required pattern {pattern}"
-- [params]
-- pattern = "(?i)数据来源|source"
-- agent_re = ""
SELECT r.task_id, r.conversation_id, r.user_id, r.reply_time AS event_time, r.reply_id AS message_id,
       r.reply_text AS reply, $pattern AS pattern
FROM turn_replies r
LEFT JOIN tasks t ON t.task_id = r.task_id
WHERE regexp_matches(coalesce(t.agent_version, '') || ' ' || coalesce(t.source, ''), $agent_re)
  AND NOT regexp_matches(r.reply_text, $pattern)
