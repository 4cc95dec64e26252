-- id = "_claim_words"
-- title = "Turn model: the words each claim names"
-- description = """
-- One row per word a claim names in its own words (claim_items.noun,
-- 'eggs|milk'), per distinct reply text: what tells two claims of one class
-- apart. A table of its own: Spark cannot plan a query that joins a table
-- function's rows (unnest) with themselves (its heap ran out on 20 turns).
-- """
SELECT text_id, clause_no, unnest(string_split(noun, '|')) AS word
FROM claim_items
WHERE noun IS NOT NULL
