-- ClickHouse copy of the warehouse table `steps`, ordered by task and seq so one
-- turn's steps are stored together. Partitioned by the step's day (start, else end).
CREATE TABLE IF NOT EXISTS steps (
    task_id         String,
    seq             Int32,
    step_id         Nullable(String),
    tool            Nullable(String),
    kind            Nullable(String),
    args            Nullable(String),
    reason          Nullable(String),
    status          Nullable(String),
    verified        Nullable(Bool),
    attempts        Nullable(Int32),
    error           Nullable(String),
    detail          Nullable(String),
    result          Nullable(String),
    started_at      Nullable(DateTime64(6, 'UTC')),
    ended_at        Nullable(DateTime64(6, 'UTC')),
    model           Nullable(String),
    input_tokens    Nullable(Int64),
    output_tokens   Nullable(Int64),
    trace_id        Nullable(String),
    span_id         Nullable(String),
    parent_span_id  Nullable(String),
    metadata        Nullable(String),
    source_file     Nullable(String),
    source_line     Nullable(Int64)
)
ENGINE = MergeTree
PARTITION BY toDate(ifNull(started_at, ifNull(ended_at, toDateTime64(0, 6, 'UTC'))))
ORDER BY (task_id, seq)
