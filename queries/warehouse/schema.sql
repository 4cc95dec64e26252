-- The trace-audit warehouse. This file is the single definition of every table;
-- the loader, the rules and the dashboard all read these names.
-- All timestamps are TIMESTAMPTZ holding UTC instants. JSON columns hold text
-- that other engines (ClickHouse, Spark) can store as String.
-- Keys (re-sending a record with the same key replaces the stored row):
--   tasks(task_id)  steps(task_id, seq)  messages(message_id)  audit_logs(audit_id)

CREATE TABLE IF NOT EXISTS tasks (
    task_id         VARCHAR NOT NULL,   -- stable id of one agent turn
    source          VARCHAR,            -- reader that produced it: canonical, seed004, seed001, chat, otlp
    user_id         VARCHAR,
    conversation_id VARCHAR,
    goal            VARCHAR,            -- what the user asked for
    plan            JSON,               -- JSON array of planned steps
    status          VARCHAR,            -- running | success | partial | failed | unknown
    total_steps     INTEGER,
    success_steps   INTEGER,
    replanned       BOOLEAN,
    started_at      TIMESTAMPTZ,
    finished_at     TIMESTAMPTZ,
    final_answer    VARCHAR,            -- the reply the user saw, when the source records it on the task
    agent_version   VARCHAR,
    model           VARCHAR,
    prompt_version  VARCHAR,
    metadata        JSON,               -- everything else the source said about the turn
    source_file     VARCHAR,
    source_line     BIGINT,
    utc_offset_min  INTEGER             -- the UTC offset started_at was written with, in minutes (+08:00: 480;
                                        -- Z and +00:00: 0); NULL when the source wrote none (naive, epoch, OTLP)
);

CREATE TABLE IF NOT EXISTS steps (
    task_id         VARCHAR NOT NULL,
    seq             INTEGER NOT NULL,   -- continues across re-plans
    step_id         VARCHAR,            -- the source's own id for the step, if any
    tool            VARCHAR,
    kind            VARCHAR,            -- tool | llm | verify | other
    args            JSON,
    reason          VARCHAR,
    status          VARCHAR,            -- success | failed | running | unknown
    verified        BOOLEAN,            -- NULL = not checked (never read as true)
    attempts        INTEGER,
    error           VARCHAR,
    detail          VARCHAR,            -- e.g. "该时段与系统日程冲突,未创建"
    result          JSON,
    started_at      TIMESTAMPTZ,
    ended_at        TIMESTAMPTZ,
    model           VARCHAR,            -- llm steps
    input_tokens    BIGINT,
    output_tokens   BIGINT,
    trace_id        VARCHAR,            -- OpenTelemetry ids, hex
    span_id         VARCHAR,
    parent_span_id  VARCHAR,
    metadata        JSON,
    source_file     VARCHAR,
    source_line     BIGINT
);

CREATE TABLE IF NOT EXISTS messages (
    message_id      VARCHAR NOT NULL,
    conversation_id VARCHAR,
    user_id         VARCHAR,
    role            VARCHAR,            -- user | assistant | tool | system
    content         VARCHAR,
    created_at      TIMESTAMPTZ,
    task_id         VARCHAR,            -- nullable: replies are often logged without it
    source          VARCHAR,
    metadata        JSON,
    source_file     VARCHAR,
    source_line     BIGINT,
    utc_offset_min  INTEGER             -- the UTC offset created_at was written with, in minutes (as tasks')
);

CREATE TABLE IF NOT EXISTS audit_logs (
    audit_id        VARCHAR NOT NULL,
    user_id         VARCHAR,
    task_id         VARCHAR,            -- nullable
    action          VARCHAR,            -- usually the tool name
    result          VARCHAR,            -- SUCCESS | FAIL | ...
    created_at      TIMESTAMPTZ,
    detail          VARCHAR,
    source          VARCHAR,
    metadata        JSON,
    source_file     VARCHAR,
    source_line     BIGINT
);

-- One row per input file that was loaded (its sha256 makes re-ingest a no-op).
CREATE TABLE IF NOT EXISTS ingest_files (
    path            VARCHAR NOT NULL,
    sha256          VARCHAR NOT NULL,
    size_bytes      BIGINT,
    format          VARCHAR,            -- comma-separated reader names seen in the file
    tasks           BIGINT,
    steps           BIGINT,
    messages        BIGINT,
    audit_logs      BIGINT,
    errors          BIGINT,
    ingested_at     TIMESTAMPTZ,
    tz              VARCHAR,            -- the zone naive times (no offset) were read in
    tz_source       VARCHAR,            -- who chose it: --tz | $TRACE_AUDIT_TZ | default (UTC, nobody said) | given
    naive_times     BOOLEAN             -- the file holds times without an offset (a sniff of its start)
);

-- Every input record that could not be loaded, with where and why.
CREATE TABLE IF NOT EXISTS ingest_errors (
    source_file     VARCHAR NOT NULL,
    line            BIGINT,
    raw             VARCHAR,            -- truncated
    reason          VARCHAR NOT NULL,
    sha256          VARCHAR,
    ingested_at     TIMESTAMPTZ
);

-- Rule runs and their findings (written by `trace-audit rules run`).
CREATE TABLE IF NOT EXISTS rule_runs (
    run_id          VARCHAR NOT NULL,
    started_at      TIMESTAMPTZ,
    finished_at     TIMESTAMPTZ,
    now_ts          TIMESTAMPTZ,        -- the --now the rules were evaluated at
    since_ts        TIMESTAMPTZ,
    until_ts        TIMESTAMPTZ,
    engine          VARCHAR,
    config_hash     VARCHAR,
    rules           JSON,               -- [{id, sha256, severity, findings, error}]
    finding_count   BIGINT,
    failed_rules    JSON                -- [{id, error}]
);

CREATE TABLE IF NOT EXISTS findings (
    run_id          VARCHAR NOT NULL,
    rule_id         VARCHAR NOT NULL,
    severity        VARCHAR NOT NULL,   -- info | warn | review | block
    task_id         VARCHAR,
    conversation_id VARCHAR,
    user_id         VARCHAR,
    seq             INTEGER,
    message         VARCHAR,
    evidence        JSON,
    event_time      TIMESTAMPTZ
);

-- What the clause reader made of each distinct reply text, kept between rule runs (written by
-- `trace-audit rules run` in its findings' transaction): real replies rarely repeat, so without it
-- every run would re-read every reply of history. `reader` names the lexicon and the reading code
-- that made a row; a run keeps only its own reader's rows. text_key: md5_number of the text.
CREATE TABLE IF NOT EXISTS reading_cache (
    reader          VARCHAR NOT NULL,
    text_key        UHUGEINT NOT NULL,
    is_claim        BOOLEAN,
    admits_failure  BOOLEAN,
    verdict         VARCHAR,
    clauses         VARCHAR             -- JSON: the reply's clauses that are not plain
);
-- The claimed actions of those replies (one row per action a claiming reply states).
CREATE TABLE IF NOT EXISTS reading_cache_items (
    reader          VARCHAR NOT NULL,
    text_key        UHUGEINT NOT NULL,
    clause_no       INTEGER,
    action          VARCHAR,
    object          VARCHAR,
    object_re       VARCHAR,
    follows         BOOLEAN,
    follows_object  VARCHAR,
    backs           VARCHAR,
    clause          VARCHAR,
    vals            VARCHAR,            -- JSON: the values the claim states
    noun            VARCHAR             -- what the claim names in its own words ('eggs|milk')
);

-- What value_checks compared, kept like the readings: one row per value of each distinct
-- comparison k (the values told or asked, the write's fields, the hour, the zone; a hash of that
-- content), and a row with vi NULL for a comparison that found no field of the value's kind.
CREATE TABLE IF NOT EXISTS value_cache (
    reader          VARCHAR NOT NULL,
    check_kind      VARCHAR NOT NULL,   -- told | asked
    k               UBIGINT NOT NULL,
    vi              INTEGER,            -- which value of the clause or request
    field           VARCHAR,
    value_type      VARCHAR,
    told            VARCHAR,
    written         VARCHAR,
    stored          VARCHAR,
    stored_from     VARCHAR,
    verdict         VARCHAR
);
-- The values each distinct user request states (NULL: none a write could hold).
CREATE TABLE IF NOT EXISTS request_cache (
    reader          VARCHAR NOT NULL,
    text_key        UHUGEINT NOT NULL,
    asks            VARCHAR             -- JSON
);

-- Small key/value facts about the warehouse: schema version, last write (the
-- dashboard's cache key).
CREATE TABLE IF NOT EXISTS meta (
    key             VARCHAR NOT NULL,
    value           VARCHAR
);

-- ===== OpenTelemetry (OTLP ingest; owned by trace_audit.ingest.read.otlp) =====
-- Every span received, as it arrived (one row per span, key (trace_id, span_id)).
-- Tasks, steps and messages of a trace are re-derived from ALL its rows here
-- whenever new spans of that trace are loaded, so spans may arrive split over
-- files or requests and in any order. See docs/opentelemetry.md.
CREATE TABLE IF NOT EXISTS otel_spans (
    trace_id        VARCHAR NOT NULL,   -- 32 hex, lower case
    span_id         VARCHAR NOT NULL,   -- 16 hex, lower case
    parent_span_id  VARCHAR,            -- NULL for a root span
    name            VARCHAR,
    kind            VARCHAR,            -- internal | server | client | producer | consumer | unspecified
    started_at      TIMESTAMPTZ,
    ended_at        TIMESTAMPTZ,
    status_code     VARCHAR,            -- unset | ok | error
    status_message  VARCHAR,
    attributes      JSON,               -- span attributes as one object {"gen_ai.tool.name": "...", ...}
    resource        JSON,               -- resource attributes (service.name, service.version, ...)
    scope_name      VARCHAR,
    scope_version   VARCHAR,
    events          JSON,               -- [{name, time_unix_nano, attributes}] or NULL
    source_file     VARCHAR,
    source_line     BIGINT              -- line (JSON) or message number (protobuf) in source_file
);

-- OTLP log records (the logs signal), as they arrived. GenAI events among them (event_name
-- gen_ai.user.message, gen_ai.choice, gen_ai.client.inference.operation.details, ...) name
-- their span by trace_id/span_id and supply that turn's request and reply text.
CREATE TABLE IF NOT EXISTS otel_logs (
    log_id          VARCHAR NOT NULL,   -- digest of the record as stored: the same record sent twice is one row
    trace_id        VARCHAR,            -- 32 hex, lower case; NULL for a log outside any trace
    span_id         VARCHAR,            -- 16 hex, lower case
    event_name      VARCHAR,            -- LogRecord.event_name, else its event.name attribute
    logged_at       TIMESTAMPTZ,        -- time_unix_nano (NULL when not set)
    observed_at     TIMESTAMPTZ,
    severity_number INTEGER,
    severity_text   VARCHAR,
    body            JSON,               -- the AnyValue body as JSON (a kvlist is an object)
    attributes      JSON,               -- {"gen_ai.system": "openai", ...}
    resource        JSON,
    scope_name      VARCHAR,
    scope_version   VARCHAR,
    source_file     VARCHAR,
    source_line     BIGINT
);
