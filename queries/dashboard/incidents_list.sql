-- incidents_list: the said-but-not-done findings of the period, newest first, with the
-- reply and each tool's outcome in the turn. The evidence JSON is read and the turns are
-- looked up only for the rows shown (after the LIMIT), not for every finding.
WITH picked AS (
    SELECT f.event_time, f.task_id, f.user_id, f.conversation_id, f.seq, f.message, f.severity, f.evidence
    FROM findings f
    WHERE f.run_id = $run_id AND f.rule_id = 'said_but_not_done'
      AND f.event_time >= $since AND f.event_time < $until
      AND ($agent_version IS NULL OR f.task_id IN (SELECT task_id FROM tasks WHERE agent_version = $agent_version))
      AND ($tool IS NULL OR f.task_id IN (SELECT task_id FROM steps WHERE tool = $tool))
    ORDER BY f.event_time DESC, f.task_id NULLS LAST
    LIMIT $limit
), inc AS (
    SELECT p.* EXCLUDE (evidence),
           coalesce(json_extract_string(p.evidence, '$.kind'), 'unknown') AS kind,
           json_extract_string(p.evidence, '$.reply') AS evidence_reply,
           t.final_answer, t.agent_version
    FROM picked p LEFT JOIN tasks t ON t.task_id = p.task_id
), outcomes AS (
    SELECT s.task_id,
           string_agg(s.tool || ': ' || CASE
                WHEN s.status = 'failed' THEN 'failed'
                WHEN s.verified = FALSE THEN 'unverified'
                WHEN s.status = 'success' AND s.verified = TRUE THEN 'ok'
                WHEN s.status = 'success' THEN 'unchecked'
                ELSE coalesce(s.status, 'unknown') END, ', ' ORDER BY s.seq) AS tools
    FROM steps s
    WHERE s.task_id IN (SELECT task_id FROM picked) AND coalesce(s.kind, 'tool') = 'tool'
    GROUP BY s.task_id
)
SELECT inc.event_time, inc.kind, inc.user_id, inc.conversation_id, inc.task_id,
       coalesce(inc.evidence_reply, inc.final_answer) AS reply,
       coalesce(o.tools, '(no tool step)') AS tools, inc.message, inc.agent_version
FROM inc LEFT JOIN outcomes o USING (task_id)
ORDER BY inc.event_time DESC, inc.task_id NULLS LAST
