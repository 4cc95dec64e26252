-- freshness: how current the warehouse is (last ingest, last rule run, newest turn).
SELECT (SELECT max(ingested_at) FROM ingest_files) AS last_ingest,
       (SELECT max(finished_at) FROM rule_runs) AS last_rule_run,
       (SELECT max(started_at) FROM tasks) AS newest_turn,
       (SELECT count(*) FROM tasks) AS turns,
       (SELECT count(*) FROM steps) AS steps
