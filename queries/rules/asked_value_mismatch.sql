-- id = "asked_value_mismatch"
-- title = "The write did not store the value the user asked for"
-- severity = "review"
-- evidence_steps = "none"
-- description = """
-- Asked versus done: the user's request (the last user message before the
-- write, else the task's goal) states a time, a date or a choice, and the
-- write's arguments hold another of the same kind: asked for 8:00, the
-- reminder was written for 20:00; asked for a window seat, got an aisle.
-- Lower severity than a false claim: the reply may have said nothing about
-- the value, and a user may have changed their mind in words the request
-- does not show. Compared once per run by queries/reading/value_checks.py.
-- kind: asked_mismatch. One finding per write step and field.
-- """
-- message = "{tool} wrote {field} = {written}, the user asked for {asked}"
SELECT task_id, seq, kind, field, value_type, asked, written, tool FROM (
    SELECT v.task_id, v.seq, 'asked_mismatch' AS kind, v.field, v.value_type, v.told AS asked, v.written, v.tool,
           row_number() OVER (PARTITION BY v.task_id, v.seq, v.field ORDER BY v.told, v.written) AS rn
    FROM value_checks v
    WHERE v.check_kind = 'asked' AND v.verdict = 'mismatch') x
WHERE rn = 1
