-- data_zone: the zone the data was ingested in (ingest_files.tz, stored per file; the one most
-- files were read in when they differ). The dashboard and `trace-audit report` both default
-- to it, so both put the same turns in the same days; NULL when no file recorded one.
SELECT tz FROM ingest_files WHERE tz IS NOT NULL GROUP BY tz ORDER BY count(*) DESC, tz LIMIT 1
