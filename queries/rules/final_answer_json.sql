-- id = "final_answer_json"
-- title = "The final answer is not valid JSON"
-- severity = "block"
-- enabled = false
-- uses = ["_turn_replies"]
-- description = """
-- Output contract: agents matched by agent_re must answer with a JSON document.
-- Off until configured. (json_valid has no portable spelling: an engine other
-- than DuckDB needs an override file for this rule.)
-- """
-- message = "reply is not valid JSON"
-- [params]
-- agent_re = ""
SELECT r.task_id, r.conversation_id, r.user_id, r.reply_time AS event_time, r.reply_id AS message_id,
       r.reply_text AS reply
FROM turn_replies r
LEFT JOIN tasks t ON t.task_id = r.task_id
WHERE regexp_matches(coalesce(t.agent_version, '') || ' ' || coalesce(t.source, ''), $agent_re)
  AND NOT json_valid(r.reply_text)
