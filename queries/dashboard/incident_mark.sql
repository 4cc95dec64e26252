-- incident_mark: the review mark of one said_but_not_done incident (review_marks,
-- queries/marks.py): keyed by its turn ($task_key: the task id, or 'reply:<message id>') and seq.
SELECT mark, note AS mark_note, marked_at
FROM review_marks
WHERE rule_id = 'said_but_not_done' AND task_key = $task_key AND seq IS NOT DISTINCT FROM $seq
