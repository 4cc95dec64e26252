-- ClickHouse copy of the warehouse table `audit_logs`.
CREATE TABLE IF NOT EXISTS audit_logs (
    audit_id        String,
    user_id         Nullable(String),
    task_id         Nullable(String),
    action          Nullable(String),
    result          Nullable(String),
    created_at      Nullable(DateTime64(6, 'UTC')),
    detail          Nullable(String),
    source          Nullable(String),
    metadata        Nullable(String),
    source_file     Nullable(String),
    source_line     Nullable(Int64)
)
ENGINE = MergeTree
PARTITION BY toDate(ifNull(created_at, toDateTime64(0, 6, 'UTC')))
ORDER BY audit_id
