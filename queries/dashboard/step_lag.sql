-- step_lag: the earliest and latest a step starts relative to its turn, in microseconds,
-- over the whole warehouse (one join of every step to its turn, run once per data change).
-- Every step of a turn that started in [A, B) then started in [A + lag_min, B + lag_max), so
-- the period queries can skip most of the steps table by the steps' own (physically ordered)
-- start times before joining, and still miss none. Steps without a start are kept apart.
SELECT min(epoch_us(s.started_at) - epoch_us(t.started_at)) AS lag_min_us,
       max(epoch_us(s.started_at) - epoch_us(t.started_at)) AS lag_max_us
FROM steps s JOIN tasks t USING (task_id)
WHERE s.started_at IS NOT NULL AND t.started_at IS NOT NULL
