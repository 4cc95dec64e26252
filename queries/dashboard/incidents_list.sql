-- incidents_list: the said-but-not-done findings of the period, newest first (undated ones
-- after, in source order), with the reply, the reply's message id (so a reply with no turn
-- opens too), the tools the turn used and its review mark (review_marks, queries/marks.py).
-- $kind (or NULL) keeps one kind. The evidence JSON is read and the turns are looked up only
-- for the rows shown (after the LIMIT).
WITH picked AS (
    SELECT f.event_time, f.task_id, f.user_id, f.conversation_id, f.seq, f.message, f.severity, f.evidence
    FROM findings f
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done'
      AND (f.event_time IS NULL OR (f.event_time >= $since AND f.event_time < $until))
      AND ($kind IS NULL OR json_extract_string(f.evidence, '$.kind') = $kind)
      AND ($agent_version IS NULL OR f.task_id IN (SELECT task_id FROM tasks WHERE agent_version = $agent_version))
      AND ($tool IS NULL OR f.task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
    ORDER BY f.event_time DESC NULLS LAST, f.task_id NULLS LAST, json_extract_string(f.evidence, '$.message_id')
    LIMIT $limit
), inc AS (
    SELECT p.* EXCLUDE (evidence),
           coalesce(json_extract_string(p.evidence, '$.kind'), 'unknown') AS kind,
           json_extract_string(p.evidence, '$.reply') AS evidence_reply,
           json_extract_string(p.evidence, '$.message_id') AS message_id,
           t.final_answer, t.agent_version, t.source_line
    FROM picked p LEFT JOIN tasks t ON t.task_id = p.task_id
), used AS (
    SELECT s.task_id, string_agg(DISTINCT s.tool, ', ' ORDER BY s.tool) AS tools
    FROM steps s
    WHERE s.task_id IN (SELECT task_id FROM picked) AND coalesce(s.kind, 'tool') = 'tool'
    GROUP BY s.task_id
)
SELECT inc.event_time, inc.kind, inc.user_id, inc.conversation_id, inc.task_id, inc.message_id,
       coalesce(inc.evidence_reply, inc.final_answer) AS reply,
       CASE WHEN inc.task_id IS NULL THEN '(no turn)' ELSE coalesce(u.tools, '(no tool step)') END AS tools,
       inc.message, inc.agent_version, rm.mark, rm.note AS mark_note
FROM inc LEFT JOIN used u USING (task_id)
LEFT JOIN review_marks rm ON rm.rule_id = 'said_but_not_done'
     AND rm.task_key = coalesce(inc.task_id, 'reply:' || inc.message_id) AND rm.seq IS NOT DISTINCT FROM inc.seq
ORDER BY inc.event_time DESC NULLS LAST, inc.task_id NULLS LAST, inc.message_id
