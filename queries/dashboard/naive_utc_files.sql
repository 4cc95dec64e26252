-- naive_utc_files: files whose times had no UTC offset and were read as UTC because neither
-- --tz nor the TRACE_AUDIT_TZ variable named a zone (ingest_files.tz_source = 'default'); the caption says so.
-- Run only on a warehouse that has these columns (a file loaded before they existed has NULLs).
SELECT count(*) AS files, min(path) AS example
FROM ingest_files WHERE naive_times AND tz_source = 'default'
