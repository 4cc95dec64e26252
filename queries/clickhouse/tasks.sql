-- ClickHouse copy of the warehouse table `tasks` (queries/warehouse/schema.sql is the source of truth;
-- tests/test_export_clickhouse.py checks that names and types stay in step).
-- JSON columns are String holding the JSON text; times are UTC microseconds.
-- A row without a start time lands in the 1970-01-01 partition.
CREATE TABLE IF NOT EXISTS tasks (
    task_id         String,
    source          Nullable(String),
    user_id         Nullable(String),
    conversation_id Nullable(String),
    goal            Nullable(String),
    plan            Nullable(String),
    status          Nullable(String),
    total_steps     Nullable(Int32),
    success_steps   Nullable(Int32),
    replanned       Nullable(Bool),
    started_at      Nullable(DateTime64(6, 'UTC')),
    finished_at     Nullable(DateTime64(6, 'UTC')),
    final_answer    Nullable(String),
    agent_version   Nullable(String),
    model           Nullable(String),
    prompt_version  Nullable(String),
    metadata        Nullable(String),
    source_file     Nullable(String),
    source_line     Nullable(Int64),
    utc_offset_min  Nullable(Int32)
)
ENGINE = MergeTree
PARTITION BY toDate(ifNull(started_at, toDateTime64(0, 6, 'UTC')))
ORDER BY task_id
