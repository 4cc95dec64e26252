-- macros: session-local helpers for the dashboard queries (temp macros work on
-- read-only connections and leave the warehouse untouched).

-- error_fingerprint: an error message with what varies per call removed, so the same
-- fault groups together: quoted strings -> <s>, uuids and long hex ids -> <id>,
-- numbers, dates and times (with their separators) -> <n>; whitespace collapsed.
CREATE OR REPLACE TEMP MACRO error_fingerprint(e) AS CASE
    WHEN e IS NULL OR trim(e) = '' THEN '(no error text)'
    ELSE left(trim(regexp_replace(
        regexp_replace(
          regexp_replace(
            regexp_replace(regexp_replace(e, '"[^"]*"|“[^”]*”|「[^」]*」', '<s>', 'g'),
                           -- a single-quoted string may hold apostrophes (Jordan's)
                           '(^|[^A-Za-z])''(?:[^'']|''[A-Za-z])*''', '\1<s>', 'g'),
            '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\b[0-9a-fA-F]*[0-9][0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\b|\b[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*[0-9][0-9a-fA-F]*\b', '<id>', 'g'),
          '[0-9]+([-:/.T ][0-9]+)*', '<n>', 'g'),
        '\s+', ' ', 'g')), 200)
    END;

-- local_day_no / local_hour_no: the local day (hour) number since 1970 of an instant, given
-- the zone's UTC offset in seconds. Plain arithmetic on epoch seconds: grouping by these
-- is several times cheaper than timezone() or date arithmetic on TIMESTAMPTZ.
CREATE OR REPLACE TEMP MACRO local_day_no(ts, off) AS CAST(floor((epoch(ts) + off) / 86400) AS INTEGER);
CREATE OR REPLACE TEMP MACRO local_hour_no(ts, off) AS CAST(floor((epoch(ts) + off) / 3600) AS BIGINT);
CREATE OR REPLACE TEMP MACRO day_of(n) AS DATE '1970-01-01' + CAST(n AS INTEGER);

-- local_minute_distance: how many minutes the local time of day of an instant is from a
-- minute of the day (0..1439), the short way round midnight.
CREATE OR REPLACE TEMP MACRO local_minute_distance(ts, off, minute) AS
    least(abs(CAST(floor(((epoch(ts) + off) % 86400 + 86400) % 86400 / 60) AS INTEGER) - minute),
          1440 - abs(CAST(floor(((epoch(ts) + off) % 86400 + 86400) % 86400 / 60) AS INTEGER) - minute));
