"""The SQL that gathers what value_checks.py compares, and that turns its comparisons into verdicts.

Kept apart from the comparing Python: these statements run on DuckDB over the turn model
(claimed_actions, claim_fits, write_steps) and the warehouse.
"""

# Inputs are grouped by a hash of what is compared (k) so each distinct (values, write, hour, zone) is
# compared once: templated assistants repeat the same reply over the same kind of write thousands of
# times (a hash, not a rank: no sort of long texts). k hashes content only, never a run's row
# numbers, so a later run finds the comparison kept (value_run.py).
# The UTC offset the turn's own steps write local times in (a calendar read returning
# 2026-11-05T10:00:00-08:00 beside a reminder stored in UTC): where nobody named the user's zone and
# the write carries none, it says where the user is. Only one offset in the turn counts (a flight's
# two ends in two zones say nothing).
TURN_OFFSETS = """
CREATE OR REPLACE TEMP TABLE $name AS
SELECT task_id, CASE WHEN count(DISTINCT off) = 1 THEN any_value(off) END AS off FROM (
    SELECT s.task_id, unnest(regexp_extract_all(
               coalesce(CAST(s.args AS VARCHAR), '') || ' ' || coalesce(CAST(s.result AS VARCHAR), ''),
               '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?([+-]\\d{2}:?\\d{2})', 1)) AS off
    FROM steps s WHERE s.task_id IN (SELECT task_id FROM $tasks))
WHERE off NOT IN ('+00:00', '-00:00', '+0000', '-0000')
GROUP BY task_id
"""
# Where the turn's steps write no local time: the offset the turn's own times were written with
# (messages.utc_offset_min, tasks.utc_offset_min, kept at ingest): the user's request, the reply
# ($replies: a reply logged without the task's id) and the turn's start. Only one offset counts:
# two disagreeing say nothing, and UTC (Z, +00:00) is where a system logs, not where a user is.
# As '+08:00', the shape of TURN_OFFSETS. A warehouse made before the column has none ($column).
MESSAGE_OFFSETS = """
CREATE OR REPLACE TEMP TABLE $name AS
SELECT task_id, CASE WHEN sign(min(m)) < 0 THEN '-' ELSE '+' END || lpad(CAST(abs(min(m)) // 60 AS VARCHAR), 2, '0')
       || ':' || lpad(CAST(abs(min(m)) % 60 AS VARCHAR), 2, '0') AS off FROM (
    SELECT task_id, $column AS m FROM messages
    WHERE role IN ('user', 'assistant') AND task_id IN (SELECT task_id FROM $tasks)
    UNION ALL SELECT task_id, $column FROM tasks WHERE task_id IN (SELECT task_id FROM $tasks)
    $replies)
WHERE m IS NOT NULL AND m <> 0
GROUP BY task_id HAVING count(DISTINCT m) = 1
"""
# the replies a told value was read from, by their own message (for MESSAGE_OFFSETS)
TOLD_REPLIES = """UNION ALL SELECT ca.task_id, $column FROM claimed_actions ca JOIN messages r ON r.message_id = ca.reply_id
    WHERE ca.has_vals = 1 AND ca.own_window = 1"""

TOLD = """
CREATE OR REPLACE TEMP TABLE _ta_told AS
SELECT hash(ci.vals, CAST(s.args AS VARCHAR), CAST(s.result AS VARCHAR), s.error, s.detail,
            strftime(ca.reply_time, '%Y-%m-%d %H'), f.tz, f.tz_source, coalesce(z.off, mo.off)) AS k,
       ca.reply_id, ca.task_id, ca.text_id, ca.clause_no, s.seq, s.tool,
       CASE WHEN s.seq = ca.backing_seq THEN 1 ELSE 0 END AS is_backing, ca.reply_time, f.tz, f.tz_source,
       coalesce(z.off, mo.off) AS turn_offset,
       CASE WHEN ca.action IN ('create', 'book') AND tc.action IN ('update', 'delete') THEN 1 ELSE 0 END AS made_by_none,
       ca.taken
FROM claimed_actions ca
JOIN claim_items ci ON ci.text_id = ca.text_id AND ci.clause_no = ca.clause_no
JOIN claim_fits w ON w.reply_id = ca.reply_id AND w.clause_no = ca.clause_no AND w.outcome <> 'not_started'
JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
LEFT JOIN tasks t ON t.task_id = ca.task_id
LEFT JOIN (SELECT path, max(tz) AS tz, max(tz_source) AS tz_source FROM ingest_files GROUP BY path) f
       ON f.path = t.source_file
LEFT JOIN _ta_turn_offset z ON z.task_id = ca.task_id
LEFT JOIN _ta_message_offset mo ON mo.task_id = ca.task_id
LEFT JOIN tool_classes tc ON tc.tool = s.tool
WHERE ca.has_vals = 1 AND ca.own_window = 1
"""
# the tasks whose told values are compared (for TURN_OFFSETS)
TOLD_TASKS = "(SELECT DISTINCT task_id FROM claimed_actions WHERE has_vals = 1 AND own_window = 1)"
# the texts of one example of each k not compared before (only the hash and ids are kept per row)
TOLD_INPUTS = """
SELECT o.k, ci.vals, strftime(o.reply_time, '%Y-%m-%dT%H:%M:%S+00:00'), CAST(s.args AS VARCHAR),
       CAST(s.result AS VARCHAR), s.error, s.detail, o.tz, o.tz_source, o.turn_offset
FROM (SELECT k, arg_min(task_id, task_id) AS task_id, arg_min(seq, task_id) AS seq,
             arg_min(text_id, task_id) AS text_id, arg_min(clause_no, task_id) AS clause_no,
             arg_min(reply_time, task_id) AS reply_time, any_value(tz) AS tz, any_value(tz_source) AS tz_source,
             any_value(turn_offset) AS turn_offset
      FROM _ta_told WHERE k NOT IN (SELECT k FROM _ta_known WHERE check_kind = 'told') GROUP BY k) o
JOIN steps s ON s.task_id = o.task_id AND s.seq = o.seq
JOIN claim_items ci ON ci.text_id = o.text_id AND ci.clause_no = o.clause_no
"""

# A told value agrees when ANY write fitting its claim stored it (one reply, several writes); it is
# shown against the backing write. Where one told value of a type matched a field, another of the
# same type in the same clause is about something else ("saved for 4 PM instead of 8 AM").
TOLD_VERDICTS = """
WITH r AS (
    SELECT o.reply_id, o.task_id, o.clause_no, o.seq, o.tool, o.is_backing, o.made_by_none, o.taken, x.*
    FROM _ta_results x JOIN _ta_told o ON o.k = x.k WHERE x.check_kind = 'told'
      AND ($all_values OR o.reply_id IN (
          SELECT t.reply_id FROM _ta_told t JOIN _ta_results b ON b.k = t.k
          WHERE b.check_kind = 'told' AND b.verdict = 'mismatch'))
),
per_value AS (
    SELECT reply_id, clause_no, vi, max(CASE WHEN verdict = 'match' THEN 1 ELSE 0 END) AS any_match
    FROM r GROUP BY reply_id, clause_no, vi
),
matched_fields AS (
    SELECT DISTINCT reply_id, clause_no, seq, field, value_type FROM r WHERE verdict = 'match'
),
ranked AS (
    SELECT r.*, p.any_match,
           row_number() OVER (PARTITION BY r.reply_id, r.clause_no, r.vi
                              ORDER BY CASE WHEN r.verdict = 'match' THEN 0 ELSE 1 END, r.is_backing DESC, r.seq DESC,
                                       r.field) AS rn
    FROM r JOIN per_value p ON p.reply_id = r.reply_id AND p.clause_no = r.clause_no AND p.vi = r.vi
),
kept AS (
    SELECT k.* FROM ranked k
    LEFT JOIN (SELECT DISTINCT reply_id, clause_no, field, value_type FROM matched_fields) m
           ON m.reply_id = k.reply_id AND m.clause_no = k.clause_no AND m.field = k.field
          AND m.value_type = k.value_type AND k.verdict = 'mismatch'
    WHERE k.rn = 1 AND m.reply_id IS NULL
)
-- One write, two claims of it ("8 PM's reminder is set, and 7 AM's too", one createReminder): the
-- write stored the first claim's value, so the second is an action never done, not a wrong value.
-- So are the values of a claim whose writes were all for other claims (claimed_actions.taken: 已删除「周报」
-- beside a rename of a list). A thing told as made under a name ("新建了待办「…」") over a write that made
-- nothing (that rename) is another thing than what the write stored (another_thing: no wrong value;
-- whether the claim is backed stays said_but_not_done's to say).
SELECT k.reply_id, k.task_id, k.clause_no, k.seq, k.tool, k.check_kind, k.field, k.value_type, k.told, k.written,
       k.stored, k.stored_from,
       CASE WHEN k.verdict = 'mismatch' AND (o.reply_id IS NOT NULL OR k.taken = 1) THEN 'unbacked'
            WHEN k.verdict = 'mismatch' AND k.value_type = 'quote' AND k.made_by_none = 1 THEN 'another_thing'
            ELSE k.verdict END AS verdict
FROM kept k
LEFT JOIN (SELECT DISTINCT reply_id, clause_no, seq, field FROM matched_fields) o
       ON o.reply_id = k.reply_id AND o.seq = k.seq AND o.field = k.field AND o.clause_no <> k.clause_no
"""


# A request that names two values of a kind ("remind me at 9 tonight and at 10 tomorrow") asks for
# two things: where the write holds one of them, the other is not a wrong value of this write. And a
# request that asks two writes for two things ("book the checkup tomorrow morning and move the meeting
# to 2 PM"): a value another write of the turn holds was asked of that write, not of this one.
ASKED_VERDICTS = """
WITH a AS (
    SELECT o.task_id, o.seq, o.tool, o.q, x.* FROM _ta_results x JOIN _ta_asked o ON o.k = x.k
    WHERE x.check_kind = 'asked' AND ($all_values OR x.k IN (
          SELECT k FROM _ta_results WHERE check_kind = 'asked' AND verdict = 'mismatch'))
),
matched AS (SELECT DISTINCT task_id, seq, field, value_type FROM a WHERE verdict = 'match'),
elsewhere AS (
    SELECT DISTINCT o.task_id, o.seq, o.q, x.vi FROM _ta_results x JOIN _ta_asked o ON o.k = x.k
    WHERE x.check_kind = 'asked' AND x.verdict = 'match'
      AND o.task_id IN (SELECT task_id FROM a WHERE verdict = 'mismatch')
)
SELECT a.* FROM a
LEFT JOIN matched m ON m.task_id = a.task_id AND m.seq = a.seq AND m.field = a.field AND m.value_type = a.value_type
WHERE a.verdict = 'match' OR (m.task_id IS NULL AND NOT EXISTS (
    SELECT 1 FROM elsewhere e WHERE e.task_id = a.task_id AND e.q = a.q AND e.vi = a.vi AND e.seq <> a.seq))
"""

# the user's request for each write: the last user message before it (by position where the
# source records one), else the task's goal; only requests that state a value (_ta_asks_with)
ASKED_WRITES = """
CREATE OR REPLACE TEMP TABLE _ta_asked_writes AS
WITH asked_tasks AS (
    -- tasks with a request that states a value: their goal, or a user message (_ta_asks_with)
    SELECT t.task_id FROM tasks t JOIN _ta_asks_with q ON q.asked = t.goal
    UNION
    SELECT m.task_id FROM messages m JOIN _ta_asks_with q ON q.asked = m.content
    WHERE m.role = 'user' AND m.task_id IS NOT NULL
)
SELECT w.task_id, w.seq, w.tool, w.msg_index FROM write_steps w JOIN asked_tasks a ON a.task_id = w.task_id
"""
ASKED = """
CREATE OR REPLACE TEMP TABLE _ta_asks AS
SELECT task_id, seq, content, created_at FROM (
    SELECT w.task_id, w.seq, m.content, m.created_at,
           row_number() OVER (PARTITION BY w.task_id, w.seq
                              ORDER BY m.msg_index DESC NULLS LAST, m.created_at DESC NULLS LAST,
                                       m.message_id DESC) AS rn
    FROM _ta_asked_writes w
    JOIN (SELECT task_id, content, created_at, message_id,
                 TRY_CAST(json_extract_string(metadata, '$.message_index') AS INTEGER) AS msg_index
          FROM messages WHERE role = 'user' AND content IS NOT NULL
            AND task_id IN (SELECT task_id FROM _ta_asked_writes)) m ON m.task_id = w.task_id
    WHERE w.msg_index IS NULL OR m.msg_index < w.msg_index) x
WHERE rn = 1;
CREATE OR REPLACE TEMP TABLE _ta_asked AS
WITH req AS (
    SELECT w.task_id, w.seq, w.tool, coalesce(a.content, t.goal) AS asked,
           coalesce(a.created_at, t.started_at) AS said_at, CAST(s.args AS VARCHAR) AS args, t.source_file
    FROM _ta_asked_writes w
    JOIN steps s ON s.task_id = w.task_id AND s.seq = w.seq
    LEFT JOIN _ta_asks a ON a.task_id = w.task_id AND a.seq = w.seq
    LEFT JOIN tasks t ON t.task_id = w.task_id
    WHERE s.args IS NOT NULL
)
SELECT hash(r.asked, r.args, strftime(r.said_at, '%Y-%m-%d %H'), f.tz, f.tz_source, coalesce(z.off, mo.off)) AS k,
       hash(r.asked) AS q, r.task_id, r.seq, r.tool, r.said_at, f.tz, f.tz_source, coalesce(z.off, mo.off) AS turn_offset
FROM req r
JOIN _ta_asks_with q ON q.asked = r.asked
LEFT JOIN (SELECT path, max(tz) AS tz, max(tz_source) AS tz_source FROM ingest_files GROUP BY path) f
       ON f.path = r.source_file
LEFT JOIN _ta_asked_turn_offset z ON z.task_id = r.task_id
LEFT JOIN _ta_asked_message_offset mo ON mo.task_id = r.task_id
"""
# the tasks whose requests are compared (for TURN_OFFSETS and MESSAGE_OFFSETS)
ASKED_TASKS = "(SELECT DISTINCT task_id FROM _ta_asked_writes)"
ASKED_INPUTS = """
SELECT o.k, q.asks, strftime(o.said_at, '%Y-%m-%dT%H:%M:%S+00:00'), CAST(s.args AS VARCHAR),
       o.tz, o.tz_source, o.turn_offset, q.asked
FROM (SELECT k, arg_min(task_id, task_id) AS task_id, arg_min(seq, task_id) AS seq,
             arg_min(said_at, task_id) AS said_at, any_value(tz) AS tz, any_value(tz_source) AS tz_source,
             any_value(turn_offset) AS turn_offset
      FROM _ta_asked WHERE k NOT IN (SELECT k FROM _ta_known WHERE check_kind = 'asked') GROUP BY k) o
JOIN steps s ON s.task_id = o.task_id AND s.seq = o.seq
LEFT JOIN tasks t ON t.task_id = o.task_id
LEFT JOIN _ta_asks a ON a.task_id = o.task_id AND a.seq = o.seq
JOIN _ta_asks_with q ON q.asked = coalesce(a.content, t.goal)
"""
# every distinct request text, with its key in request_cache
REQUESTS = """
CREATE OR REPLACE TEMP TABLE _ta_requests AS
SELECT md5_number(asked) AS text_key, asked FROM (
    SELECT DISTINCT content AS asked FROM messages WHERE role = 'user' AND content IS NOT NULL
    UNION SELECT DISTINCT goal FROM tasks WHERE goal IS NOT NULL)
"""
