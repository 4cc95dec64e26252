"""The SQL that rebuilds tasks, steps and messages from stored spans (set-based).

`rebuild.py` runs these statements in order inside the loader's transaction.
They read only the traces listed in the temp table `otlp_touched`, and follow
the rules of the test reference `tests/otlp_mapping_reference.py` (and the table in docs/opentelemetry.md) statement for
statement; the names of the temp tables say what each step holds.

Attributes are read once per span (`otlp_attr_sql.py`: the attribute columns and the
helpers over their JSON text); a step's tool, arguments, result and stated error are
`otlp_step_sql.py`; the task ids `otlp_task_ids_sql.py`. This module holds the statements.
"""

from __future__ import annotations

from ..read.otlp.attributes import (AGENT_SPAN_NAMES, CONVERSATION_KEYS, INDEXED_PREFIXES, INPUT_TOKENS, LANGFUSE_LEVEL,
                                   LANGFUSE_STATUS_MESSAGE, LANGFUSE_TYPE, MCP_METHOD, MCP_TOOL_CALL, MODEL,
                                   OUTPUT_TOKENS, PROVIDER, STEP_PROVIDER, TASK_ID_KEY, TEXT_KEYS, TOOL_ARGS,
                                   TOOL_NAME, TOOL_RESULT, TOOL_SPAN_NAMES, USER_KEYS)
from ..read.vocabulary import TASK_STATUSES, VERIFY_TOOL
from .otlp_attr_sql import ATTRS, RESOURCE_ATTRS, RESULT_KEYS, EXIT_KEYS, col, rcol, _paths, is_str, sval, pystr, truthy, present, first, or_chain, as_bool, as_int, short, meta
from .otlp_step_sql import _result, _args, _tool, _err, _lf_level, _p, _WS, _TASK_STATUSES, _said, _exception, _holds_json
# The task-id statements, run by otlp_rebuild.py as q.*.
from .otlp_task_ids_sql import DERIVED_SHAPE, OLD, CLAIMS_IN_PLAY, CLAIM_CLOSURE, SHAPED_CLAIMS, NAMED_TRACES, NO_NAMED_TRACES, IDS, _OLD_IDS, DELETE_OLD  # noqa: F401


# ---- the statements ----------------------------------------------------------------------

# json_transform into a struct of JSON fields parses each object once and finds every
# key in one pass (json_extract with a list of paths looked each path up on its own);
# keys match case-sensitively, a JSON null becomes NULL, a repeated key keeps its first value.
_STRUCTURE = "'{" + ", ".join(f'"{k}": "JSON"' for k in ATTRS) + "}'"
_nulled = ", ".join(f"nullif(CAST(struct_extract(a, '{k}') AS VARCHAR), 'null') AS a{i}" for i, k in enumerate(ATTRS))
_op = col("gen_ai.operation.name")
_oi = col("openinference.span.kind")
_tl = col("traceloop.span.kind")
_claim = col(TASK_ID_KEY)
_lf = col(LANGFUSE_TYPE)
_names = lambda names: ", ".join("'" + n + "'" for n in names)  # noqa: E731

SPANS = f"""
CREATE OR REPLACE TEMP TABLE otlp_sp AS
WITH x AS (
  SELECT s.trace_id, s.span_id, s.parent_span_id AS parent, coalesce(s.name, '') AS name,
         s.started_at, s.ended_at, s.status_code, s.status_message, s.resource,
         CAST(s.events AS VARCHAR) AS events, s.source_file, s.source_line, s.rowid AS n,
         json_transform(s.attributes, {_STRUCTURE}) AS a,
         -- present even when null (json_transform reads a JSON null as absent): makes an LLM span
         json_extract(s.attributes, ['$."llm.request.type"', '$."gen_ai.request.model"']) AS llm_keys,
         CASE WHEN {" OR ".join(f"contains(CAST(s.attributes AS VARCHAR), '{p}')" for p in INDEXED_PREFIXES)}
              THEN CAST(s.attributes AS VARCHAR) END AS indexed_attrs
  FROM otel_spans s
  WHERE s.trace_id IN (SELECT trace_id FROM otlp_touched)
), y AS (
  SELECT * EXCLUDE (a, llm_keys), {_nulled},
         (llm_keys[1] IS NOT NULL OR llm_keys[2] IS NOT NULL) AS has_llm_key
  FROM x
)
SELECT *,
  CASE
    WHEN {_op} = '"invoke_agent"' THEN 'agent'
    WHEN {_op} = '"execute_tool"' THEN 'tool'
    WHEN {_op} IN ('"chat"', '"text_completion"', '"generate_content"', '"completion"') THEN 'llm'
    WHEN {is_str(_oi)} AND upper({sval(_oi)}) = 'AGENT' THEN 'agent'
    WHEN {is_str(_oi)} AND upper({sval(_oi)}) = 'TOOL' THEN 'tool'
    WHEN {is_str(_oi)} AND upper({sval(_oi)}) = 'LLM' THEN 'llm'
    WHEN {is_str(_oi)} AND upper({sval(_oi)}) = 'CHAIN' THEN 'chain'
    WHEN {is_str(_tl)} AND lower({sval(_tl)}) = 'agent' THEN 'agent'
    WHEN {is_str(_tl)} AND lower({sval(_tl)}) = 'tool' THEN 'tool'
    WHEN {is_str(_tl)} AND lower({sval(_tl)}) = 'workflow' THEN 'chain'
    WHEN {is_str(_lf)} AND lower({sval(_lf)}) = 'agent' THEN 'agent'
    WHEN {is_str(_lf)} AND lower({sval(_lf)}) = 'tool' THEN 'tool'
    WHEN {is_str(_lf)} AND lower({sval(_lf)}) = 'generation' THEN 'llm'
    WHEN {is_str(_lf)} AND lower({sval(_lf)}) = 'chain' THEN 'chain'
    WHEN {_op} IS NULL AND starts_with(name, 'invoke_agent') THEN 'agent'
    WHEN {_op} IS NULL AND starts_with(name, 'execute_tool') THEN 'tool'
    WHEN {_op} IS NULL AND name IN ({_names(AGENT_SPAN_NAMES)}) THEN 'agent'
    WHEN {_op} IS NULL AND name IN ({_names(TOOL_SPAN_NAMES)}) THEN 'tool'
    WHEN {_op} IS NULL AND {col(MCP_METHOD)} = '"{MCP_TOOL_CALL}"' THEN 'tool'
    WHEN {_op} IS NULL AND has_llm_key THEN 'llm'
  END AS role,
  {first([col(k) for k in CONVERSATION_KEYS])} AS conv_v,
  {first([col(k) for k in USER_KEYS])} AS user_v,
  {first([col(k) for k in PROVIDER])} AS prov_v,
  CASE WHEN {is_str(_claim)} AND {_claim} <> '""' THEN {sval(_claim)}
       WHEN json_type({_claim}) IN ('BIGINT', 'UBIGINT') THEN {_claim} END AS claim_v
FROM y
"""

# Each span's parent as a row number (n), so that the walk up and the joins after it
# compare integers, not (trace id, span id) strings.
EDGES = """
CREATE OR REPLACE TEMP TABLE otlp_e AS
SELECT s.n, s.trace_id, s.parent, s.role, p.n AS pn, s.parent IS NOT NULL AS has_parent
FROM otlp_sp s LEFT JOIN otlp_sp p ON p.trace_id = s.trace_id AND p.span_id = s.parent
"""

# Every span with each of its ancestors (depth 0 = itself), as far as they are stored.
CHAIN = """
CREATE OR REPLACE TEMP TABLE otlp_chain AS
WITH RECURSIVE chain(n, cur, cur_pn, cur_has_parent, cur_role, depth) AS (
  SELECT n, n, pn, has_parent, role, 0 FROM otlp_e
  UNION ALL
  SELECT c.n, e.n, e.pn, e.has_parent, e.role, c.depth + 1
  FROM chain c JOIN otlp_e e ON e.n = c.cur_pn
  WHERE c.depth < 999
)
SELECT * FROM chain
"""

# Heads of turns: outermost agent spans, or (a trace without agents) root spans. A span
# whose parent is missing gets the number of its missing parent's turn (`orphans`: the
# smallest n among the spans of its trace waiting for that same parent).
FLAGS = """
CREATE OR REPLACE TEMP TABLE otlp_flag AS
WITH orphans AS (
  SELECT trace_id, parent, min(n) AS orphan_key FROM otlp_e WHERE has_parent AND pn IS NULL GROUP BY ALL
)
SELECT e.n,
  CASE WHEN bool_or(e.role = 'agent') OVER (PARTITION BY e.trace_id)
       THEN coalesce(e.role = 'agent', false) AND NOT coalesce(up.agent_above, false)
       ELSE NOT e.has_parent END AS is_head,
  (e.has_parent AND e.pn IS NULL) AS parent_missing,
  o.orphan_key
FROM otlp_e e
LEFT JOIN (SELECT n, bool_or(depth > 0 AND cur_role = 'agent') AS agent_above FROM otlp_chain GROUP BY n) up
  USING (n)
LEFT JOIN orphans o ON e.has_parent AND e.pn IS NULL AND o.trace_id = e.trace_id AND o.parent = e.parent
"""

# The turn of each span: walking up, the first head (its id), root (none) or missing
# parent (that parent's id: the task span that has not arrived). `turn` numbers it: a
# head's n (>= 0), -2 - orphan_key for a missing parent; -1 (a root, no turn) is dropped.
# A head is the first head on its own way up, so a turn's members include its head iff
# one of them is a head.
MEMBERS = """
CREATE OR REPLACE TEMP TABLE otlp_m AS
WITH k AS (
  SELECT c.n,
    arg_min(CASE WHEN f.is_head THEN c.cur WHEN NOT c.cur_has_parent THEN -1 ELSE -2 - f.orphan_key END,
            c.depth) AS turn
  FROM otlp_chain c JOIN otlp_flag f ON f.n = c.cur
  WHERE f.is_head OR NOT c.cur_has_parent OR f.parent_missing
  GROUP BY c.n
  HAVING turn <> -1
), g AS (
  SELECT k.turn, bool_or(f.is_head) AS has_head, bool_or(e.role IN ('tool', 'llm')) AS has_work
  FROM k JOIN otlp_flag f USING (n) JOIN otlp_e e USING (n)
  GROUP BY k.turn
  HAVING has_head OR has_work
), named AS (
  SELECT g.*, h.trace_id, CASE WHEN g.turn >= 0 THEN h.span_id ELSE h.parent END AS turn_key
  FROM g JOIN otlp_sp h ON h.n = CASE WHEN g.turn >= 0 THEN g.turn ELSE -2 - g.turn END
), t AS (
  SELECT *, CASE WHEN count(*) OVER (PARTITION BY trace_id) = 1 THEN trace_id
                 ELSE trace_id || ':' || turn_key END AS task_id
  FROM named
)
SELECT *,
  row_number() OVER w AS ord,
  sum(CASE WHEN is_step THEN 1 ELSE 0 END) OVER (w ROWS UNBOUNDED PRECEDING) AS seq
FROM (
  SELECT s.n, s.trace_id, s.span_id, s.role, s.started_at, s.ended_at, s.conv_v, s.user_v, s.prov_v, s.claim_v,
    t.task_id, t.turn_key, t.has_head, (t.has_head AND f.is_head) AS is_task_head,
    s.role = 'tool' OR (s.role = 'llm' AND NOT (t.has_head AND f.is_head)) AS is_step
  FROM k JOIN t USING (turn) JOIN otlp_sp s USING (n) JOIN otlp_flag f USING (n)
)
WINDOW w AS (PARTITION BY task_id ORDER BY started_at NULLS LAST, span_id)
"""

STEPS = f"""
CREATE OR REPLACE TEMP TABLE otlp_step AS
WITH b0 AS (
  SELECT s.*, m.task_id, m.seq,
    CASE WHEN s.role = 'tool' THEN {_result} END AS result_raw,
    CASE WHEN s.role = 'tool' THEN {_args} END AS args_raw,
    {_tool} AS tool_raw,
    {first([col(k) for k in MODEL])} AS model_raw,
    {first([col(k) for k in INPUT_TOKENS])} AS in_tok_raw,
    {first([col(k) for k in OUTPUT_TOKENS])} AS out_tok_raw,
    {first([col(k) for k in STEP_PROVIDER])} AS prov_raw,
    trim(CASE WHEN starts_with(name, 'execute_tool') THEN substr(name, 13)
              WHEN starts_with(name, '{MCP_TOOL_CALL}') THEN substr(name, {len(MCP_TOOL_CALL) + 1}) ELSE name END,
         {_WS}) AS name_tool
  FROM otlp_m m JOIN otlp_sp s USING (n)
  WHERE m.is_step
), base AS (
  SELECT *,
    CASE WHEN role = 'tool' THEN
      CASE WHEN {truthy('tool_raw')} THEN {pystr('tool_raw')} ELSE nullif(name_tool, '') END
    END AS tool,
    CASE WHEN role = 'tool' AND {is_str('tool_raw')} AND {sval('tool_raw')} = '{VERIFY_TOOL}' THEN 'verify'
         WHEN role = 'tool' AND NOT {truthy('tool_raw')} AND name_tool = '{VERIFY_TOOL}' THEN 'verify'
         WHEN role = 'tool' THEN 'tool' ELSE 'llm' END AS kind,
    trim({sval('result_raw')}, {_WS}) AS r_trim,
    trim({sval('args_raw')}, {_WS}) AS a_trim
  FROM b0
), r AS (
  SELECT *, {_holds_json('result_raw', 'r_trim')} AS r_json, {_holds_json('args_raw', 'a_trim')} AS a_json FROM base
), p0 AS (
  SELECT *, CASE WHEN r_json THEN r_trim ELSE result_raw END AS r FROM r
), p AS (
  SELECT *, json_extract(r, {_paths(RESULT_KEYS)}) AS p, json_type(r) AS r_type FROM p0
), said AS (
  SELECT *, CASE WHEN role = 'tool' THEN {_said} END AS said FROM p
), f AS (
  SELECT *, (status_code = 'error' OR {truthy(_err)} OR said IS NOT NULL
             OR ({is_str(_lf_level)} AND upper({sval(_lf_level)}) = 'ERROR')) AS failed FROM said
)
SELECT task_id, seq::INTEGER AS seq,
  coalesce(nullif({pystr(col('gen_ai.tool.call.id'))}, ''), span_id) AS step_id,
  tool, kind,
  CAST(CASE WHEN a_json THEN {sval('args_raw')} ELSE args_raw END AS JSON) AS args,
  {pystr(col('trace_audit.reason'))} AS reason,
  CASE WHEN failed THEN 'failed' ELSE 'success' END AS status,
  coalesce({as_bool(col('trace_audit.verified'))},
           CASE WHEN r_type = 'OBJECT' AND {_p('verified')} IN ('true', 'false') THEN {_p('verified')} = 'true' END)
    AS verified,
  CAST(coalesce({as_int(col('trace_audit.attempts'))},
                CASE WHEN r_type = 'OBJECT' THEN {as_int(_p('attempts'))} END) AS INTEGER) AS attempts,
  coalesce(CASE WHEN {present(col('trace_audit.error'))} THEN {pystr(col('trace_audit.error'))} END,
           CASE WHEN failed THEN coalesce(nullif(status_message, ''),
                                          nullif({pystr(col(LANGFUSE_STATUS_MESSAGE))}, ''), nullif(said, ''), {_exception},
                                          CASE WHEN {truthy(_err)} THEN {pystr(_err)} END) END) AS error,
  CASE WHEN {col('trace_audit.detail')} IS NOT NULL THEN {pystr(col('trace_audit.detail'))}
       WHEN r_type = 'OBJECT' AND {is_str(_p('detail'))} THEN {sval(_p('detail'))} END AS detail,
  CAST(CASE WHEN r_json THEN {sval('result_raw')} ELSE result_raw END AS JSON) AS result,
  started_at, ended_at,
  CASE WHEN kind = 'llm' THEN {pystr('model_raw')} END AS model,
  {as_int('in_tok_raw')} AS input_tokens,
  {as_int('out_tok_raw')} AS output_tokens,
  trace_id, span_id, parent AS parent_span_id,
  CAST({meta([("span_name", "to_json(name)"), ("tool_call_id", col("gen_ai.tool.call.id")), ("error_type", _err),
              ("provider", "prov_raw")])} AS JSON) AS metadata,
  source_file, source_line
FROM f
"""

# Turn-level values; goal and final_answer come from Python (otlp_text) afterwards.
_conv, _user, _prov = "conv_v", "user_v", "prov_v"

TASKS = f"""
CREATE OR REPLACE TEMP TABLE otlp_task AS
WITH per AS (
  SELECT task_id, any_value(trace_id) AS trace_id, any_value(turn_key) AS turn_key, bool_or(has_head) AS has_head,
    arg_min(n, ord) FILTER (is_task_head) AS head_n,
    arg_min({_conv}, ord) FILTER (is_task_head) AS h_conv,
    arg_min({_conv}, ord) FILTER (NOT is_task_head AND {_conv} IS NOT NULL) AS o_conv,
    arg_min({_user}, ord) FILTER (is_task_head) AS h_user,
    arg_min({_user}, ord) FILTER (NOT is_task_head AND {_user} IS NOT NULL) AS o_user,
    arg_min({_prov}, ord) FILTER (is_task_head) AS h_prov,
    arg_min({_prov}, ord) FILTER (NOT is_task_head AND {_prov} IS NOT NULL) AS o_prov,
    arg_min(claim_v, ord) FILTER (is_task_head) AS h_claim,
    arg_min(claim_v, ord) FILTER (NOT is_task_head AND claim_v IS NOT NULL) AS o_claim,
    min(started_at) AS first_start, max(ended_at) AS last_end,
    arg_min(n, ord) AS first_n
  FROM otlp_m GROUP BY task_id
), steps AS (
  SELECT task_id, count(*) FILTER (kind <> 'llm') AS work,
    count(*) FILTER (kind <> 'llm' AND status = 'failed') AS failed,
    count(*) FILTER (kind <> 'llm' AND status = 'success') AS ok,
    arg_min(model, seq) FILTER (kind = 'llm' AND model <> '') AS llm_model
  FROM otlp_step GROUP BY task_id
), o AS (
  SELECT per.*, coalesce(steps.work, 0) AS work, coalesce(steps.failed, 0) AS failed, coalesce(steps.ok, 0) AS ok,
    steps.llm_model, h.* EXCLUDE (trace_id), json_extract(CAST(h.resource AS VARCHAR), {_paths(RESOURCE_ATTRS)}) AS res
  FROM per LEFT JOIN steps USING (task_id)
  JOIN otlp_sp h ON h.n = coalesce(per.head_n, per.first_n)
), v AS (
  SELECT *, {", ".join(f"nullif(CAST(res[{i + 1}] AS VARCHAR), 'null') AS {rcol(k)}" for i, k in enumerate(RESOURCE_ATTRS))},
    CASE WHEN NOT has_head THEN NULL ELSE {col('trace_audit.status')} END AS ts_raw
  FROM o
), s AS (
  SELECT *,
    CASE WHEN NOT has_head THEN 'running'
         WHEN {truthy('ts_raw')} AND lower({pystr('ts_raw')}) IN ({_TASK_STATUSES})
           THEN lower({pystr('ts_raw')})
         WHEN status_code = 'error' OR {truthy(_err)} THEN 'failed'
         WHEN failed > 0 AND ok > 0 THEN 'partial'
         WHEN failed > 0 THEN 'failed'
         ELSE 'success' END AS task_status
  FROM v
)
SELECT task_id, 'otlp' AS source,
  {pystr(f"coalesce(CASE WHEN has_head THEN h_conv END, o_conv, {first([rcol(k) for k in CONVERSATION_KEYS])})")}
    AS conversation_id,
  {pystr(f"coalesce(CASE WHEN has_head THEN h_user END, o_user, {first([rcol(k) for k in USER_KEYS])})")} AS user_id,
  task_status AS status, work::INTEGER AS total_steps, ok::INTEGER AS success_steps,
  CASE WHEN has_head THEN {as_bool(col('trace_audit.replanned'))} END AS replanned,
  CASE WHEN has_head THEN started_at ELSE first_start END AS started_at,
  CASE WHEN has_head AND task_status <> 'running' THEN ended_at END AS finished_at,
  {pystr(or_chain([f"CASE WHEN has_head THEN {first([col('gen_ai.agent.version')])} END", rcol('service.version')]))}
    AS agent_version,
  coalesce(CASE WHEN has_head THEN {pystr(first([col(k) for k in MODEL]))} END, llm_model) AS model,
  CASE WHEN has_head THEN {pystr(col('trace_audit.prompt_version'))} END AS prompt_version,
  CAST({meta([
      ("trace_id", "to_json(trace_id)"), ("task_span_id", "to_json(turn_key)"),
      ("agent_name", or_chain([f"CASE WHEN has_head THEN {first([col('gen_ai.agent.name')])} END", rcol('service.name')])),
      ("agent_id", f"CASE WHEN has_head THEN {col('gen_ai.agent.id')} END"),
      ("service_name", rcol("service.name")),
      ("span_name", "CASE WHEN has_head THEN to_json(name) END"),
      ("provider", f"coalesce(CASE WHEN has_head THEN h_prov END, o_prov)"),
      ("unfinished", "CASE WHEN NOT has_head THEN to_json('the task span has not arrived: the turn is still running "
                     "or was lost') END"),
      ("status_message", "CASE WHEN has_head AND status_message <> '' THEN to_json(status_message) END"),
  ])} AS JSON) AS metadata,
  source_file, source_line, trace_id, last_end, turn_key,
  coalesce(CASE WHEN has_head THEN h_claim END, o_claim) AS claim
FROM s
"""

INSERT_STEPS = """
INSERT INTO steps BY NAME
SELECT s.* REPLACE (i.task_id AS task_id)
FROM otlp_step s JOIN otlp_ids i ON i.turn_id = s.task_id
"""

_TASKS = """
WITH t AS (
  SELECT ot.* EXCLUDE (turn_key, claim) REPLACE (i.task_id AS task_id,
         CAST(json_merge_patch(ot.metadata, i.meta) AS JSON) AS metadata), ot.task_id AS turn_id
  FROM otlp_task ot JOIN otlp_ids i ON i.turn_id = ot.task_id
)
"""

INSERT_TASKS = _TASKS + """
INSERT INTO tasks BY NAME
SELECT t.* EXCLUDE (trace_id, last_end, turn_id), x.goal, x.final_answer
FROM t LEFT JOIN otlp_text x ON x.task_id = t.turn_id
"""

INSERT_MESSAGES = _TASKS + """
INSERT INTO messages BY NAME
SELECT t.task_id || ':user' AS message_id, t.conversation_id, t.user_id, 'user' AS role, x.goal AS content,
       t.started_at AS created_at, t.task_id, 'otlp' AS source, CAST(json_object('trace_id', t.trace_id) AS JSON) AS metadata,
       t.source_file, t.source_line
FROM t JOIN otlp_text x ON x.task_id = t.turn_id WHERE x.goal IS NOT NULL AND x.goal <> ''
UNION ALL BY NAME
SELECT t.task_id || ':assistant' AS message_id, t.conversation_id, t.user_id, 'assistant' AS role,
       x.final_answer AS content, coalesce(t.finished_at, t.last_end, t.started_at) AS created_at, t.task_id,
       'otlp' AS source, CAST(json_object('trace_id', t.trace_id) AS JSON) AS metadata, t.source_file, t.source_line
FROM t JOIN otlp_text x ON x.task_id = t.turn_id WHERE x.final_answer IS NOT NULL AND x.final_answer <> ''
"""

def _text_values(alias: str) -> str:
    """Per text key, two columns: a JSON string's value (unescaped here, not by a
    json.loads per value in Python), else the JSON text of any other value."""
    return ", ".join(f"CASE WHEN {is_str(alias + '.' + col(k))} THEN {sval(alias + '.' + col(k))} END, "
                     f"CASE WHEN NOT {is_str(alias + '.' + col(k))} THEN {alias}.{col(k)} END" for k in TEXT_KEYS)


# Spans whose text the turn's request and reply come from: heads first; LLM steps of
# turns whose head gave no text (or that have no head) in a second round.
HEAD_TEXTS = f"""
SELECT m.task_id, s.role, {_text_values('s')}, s.indexed_attrs
FROM otlp_m m JOIN otlp_sp s USING (n) WHERE m.is_task_head
"""

LLM_TEXTS = f"""
SELECT s.task_id, s.seq, epoch_us(s.ended_at), s.span_id, m.role, {_text_values('m')}, m.indexed_attrs
FROM otlp_step s JOIN otlp_sp m ON m.trace_id = s.trace_id AND m.span_id = s.span_id
WHERE s.kind = 'llm' AND s.task_id IN (SELECT task_id FROM otlp_need_text)
"""

# GenAI log events on the spans of the turns still without texts (otlp_need_text), in time order.
ANY_TOUCHED_LOGS = "SELECT EXISTS (SELECT 1 FROM otel_logs WHERE trace_id IN (SELECT trace_id FROM otlp_touched))"
LOG_TEXTS = """
SELECT m.task_id, m.span_id, epoch_us(m.started_at), epoch_us(m.ended_at), l.event_name, l.body, l.attributes
FROM otel_logs l JOIN otlp_m m ON m.trace_id = l.trace_id AND m.span_id = l.span_id
WHERE l.trace_id IN (SELECT trace_id FROM otlp_touched)
  AND starts_with(l.event_name, 'gen_ai.')
  AND m.task_id IN (SELECT task_id FROM otlp_need_text)
ORDER BY m.task_id, m.span_id, l.logged_at NULLS FIRST, l.observed_at NULLS FIRST, l.source_line, l.log_id
"""

DROP = ["DROP TABLE IF EXISTS " + t for t in
        ("otlp_sp", "otlp_e", "otlp_chain", "otlp_flag", "otlp_m", "otlp_step", "otlp_task", "otlp_old", "otlp_ids", "otlp_named",
         "otlp_need_text")]

