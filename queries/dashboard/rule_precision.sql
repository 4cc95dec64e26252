-- rule_precision: each rule's precision from the investigators' review marks (review_marks,
-- queries/marks.py): confirmed and handled findings were real, false alarms were not.
-- Marks outlive rule runs, so this counts every marked finding of the rule, whatever run.
SELECT rule_id,
       count_if(mark = 'confirmed') AS confirmed,
       count_if(mark = 'handled') AS handled,
       count_if(mark = 'false_alarm') AS false_alarm,
       count(*) AS marked,
       (count_if(mark IN ('confirmed', 'handled'))::DOUBLE / count(*)) AS precision
FROM review_marks
GROUP BY rule_id
ORDER BY rule_id
