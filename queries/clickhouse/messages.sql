-- ClickHouse copy of the warehouse table `messages`; task_id is often NULL
-- (replies logged without it), so the sort key is the message id.
CREATE TABLE IF NOT EXISTS messages (
    message_id      String,
    conversation_id Nullable(String),
    user_id         Nullable(String),
    role            Nullable(String),
    content         Nullable(String),
    created_at      Nullable(DateTime64(6, 'UTC')),
    task_id         Nullable(String),
    source          Nullable(String),
    metadata        Nullable(String),
    source_file     Nullable(String),
    source_line     Nullable(Int64),
    utc_offset_min  Nullable(Int32)
)
ENGINE = MergeTree
PARTITION BY toDate(ifNull(created_at, toDateTime64(0, 6, 'UTC')))
ORDER BY message_id
