-- turn_claim_scope: what the turn model needs to judge the claims of one turn (the task ids in
-- _ta_claim_turn), copied into temp tables that then stand in for tasks, messages and steps on
-- one cursor only (queries/claims_report.py renames them; the warehouse is never written).
-- The turn's conversation: its tasks and messages (a reply logged without a task id is linked
-- by time within its conversation, _turn_replies.sql) and their steps. Beside them, one
-- stand-in step (no task) per tool each of those source files used, so that "does a write tool
-- of this agent name bags" is asked of the whole file as in a full run (_claim_fits.sql), with
-- each tool's MCP annotations gathered over all of its steps (queries/reading/tables.py).
CREATE OR REPLACE TEMP TABLE _ta_scope_tasks AS
SELECT k.* FROM tasks k
WHERE k.task_id IN (SELECT task_id FROM _ta_claim_turn)
   OR k.conversation_id IN (SELECT t.conversation_id FROM tasks t WHERE t.task_id IN (SELECT task_id FROM _ta_claim_turn));
CREATE OR REPLACE TEMP TABLE _ta_scope_messages AS
SELECT m.* FROM messages m
WHERE m.task_id IN (SELECT task_id FROM _ta_scope_tasks)
   OR m.conversation_id IN (SELECT conversation_id FROM _ta_scope_tasks);
CREATE OR REPLACE TEMP TABLE _ta_scope_steps AS
SELECT s.* FROM steps s WHERE s.task_id IN (SELECT task_id FROM _ta_scope_tasks);
INSERT INTO _ta_scope_steps BY NAME
SELECT u.source_file, u.tool,
       CASE WHEN a.tool IS NOT NULL THEN json_object('annotations', json_object('readOnlyHint', a.read_only,
                                                                               'destructiveHint', a.destructive)) END
           AS metadata
FROM (SELECT DISTINCT source_file, tool FROM steps
      WHERE tool IS NOT NULL AND (source_file IN (SELECT source_file FROM _ta_scope_tasks)
                                  OR tool IN (SELECT tool FROM _ta_scope_steps))) u
LEFT JOIN (SELECT tool,
                  bool_or(TRY_CAST(json_extract_string(metadata, '$.annotations.readOnlyHint') AS BOOLEAN)) AS read_only,
                  bool_or(TRY_CAST(json_extract_string(metadata, '$.annotations.destructiveHint') AS BOOLEAN))
                      AS destructive
           FROM steps
           WHERE CAST(metadata AS VARCHAR) LIKE '%Hint%'
           GROUP BY tool) a ON a.tool = u.tool;
