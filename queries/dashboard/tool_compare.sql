-- tool_compare: per tool, counts in the period and the one before (the input of the
-- significance test and of "worst tool"), rolled up from the page's period_step_counts stage.
SELECT tool,
       CASE WHEN current THEN 'current' ELSE 'previous' END AS period,
       CAST(sum(steps) AS BIGINT) AS calls,
       CAST(sum(failed) AS BIGINT) AS failed,
       CAST(sum(checked) AS BIGINT) AS checked,
       CAST(sum(verified_false) AS BIGINT) AS verified_false,
       CAST(sum(retried) AS BIGINT) AS retried,
       CAST(sum(problems) AS BIGINT) AS problems
FROM period_step_counts
WHERE tool_step
GROUP BY ALL
ORDER BY tool, period
