-- vf_fingerprints: verified=false steps of the period by tool and error fingerprint, from
-- the page's checked_steps stage. The fingerprint regexes run once per distinct error text,
-- not once per step. retried_same_error counts steps that used both attempts and still
-- ended on this error: the write path failed twice the same way, one systemic signal among
-- others (dashboard/systemic.py). top_version / top_version_steps: the agent
-- version with most of the group's steps, and how many (concentration in one version).
WITH vf AS (
    SELECT * FROM checked_steps WHERE verified = FALSE
), prints AS (
    SELECT error, error_fingerprint(error) AS fingerprint FROM (SELECT DISTINCT error FROM vf)
), tagged AS (
    SELECT vf.*, p.fingerprint FROM vf JOIN prints p ON p.error IS NOT DISTINCT FROM vf.error
), per_version AS (
    SELECT tool, fingerprint, agent_version, count(*) AS n,
           row_number() OVER (PARTITION BY tool, fingerprint ORDER BY count(*) DESC, agent_version NULLS LAST) AS rn
    FROM tagged GROUP BY tool, fingerprint, agent_version
), top AS (
    SELECT tool, fingerprint, agent_version AS top_version, n AS top_version_steps FROM per_version WHERE rn = 1
)
SELECT vf.tool,
       vf.fingerprint,
       count(*) AS steps,
       count(DISTINCT vf.user_id) AS users,
       count_if(vf.attempts >= 2) AS retried_same_error,
       min(vf.step_at) AS first_seen,
       max(vf.step_at) AS last_seen,
       string_agg(DISTINCT vf.agent_version, ', ' ORDER BY vf.agent_version) AS agent_versions,
       any_value(vf.error) AS example,
       any_value(top.top_version) AS top_version, any_value(top.top_version_steps) AS top_version_steps
FROM tagged vf JOIN top ON top.tool IS NOT DISTINCT FROM vf.tool AND top.fingerprint = vf.fingerprint
GROUP BY vf.tool, vf.fingerprint
ORDER BY steps DESC, vf.tool, vf.fingerprint
LIMIT $limit
