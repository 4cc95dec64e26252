-- vf_fingerprints: verified=false steps of the period by tool and error fingerprint, from
-- the page's checked_steps stage. The fingerprint regexes run once per distinct error text,
-- not once per step. retried_same_error counts steps that used both attempts and still
-- ended on this error: the write path failed twice the same way, a systemic signal.
WITH vf AS (
    SELECT * FROM checked_steps WHERE verified = FALSE
), prints AS (
    SELECT error, error_fingerprint(error) AS fingerprint FROM (SELECT DISTINCT error FROM vf)
)
SELECT vf.tool,
       p.fingerprint,
       count(*) AS steps,
       count(DISTINCT vf.user_id) AS users,
       count_if(vf.attempts >= 2) AS retried_same_error,
       min(vf.step_at) AS first_seen,
       max(vf.step_at) AS last_seen,
       string_agg(DISTINCT vf.agent_version, ', ' ORDER BY vf.agent_version) AS agent_versions,
       any_value(vf.error) AS example
FROM vf JOIN prints p ON p.error IS NOT DISTINCT FROM vf.error
GROUP BY ALL
ORDER BY steps DESC, vf.tool, p.fingerprint
LIMIT $limit
