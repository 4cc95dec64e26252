"""SQL snippets shared by the field-mapped readers."""

# A step's kind: as given when it is one we know, else from the tool name.
STEP_KIND = (
    "CASE WHEN lower(kind) IN ('tool','llm','verify','other') THEN lower(kind) "
    "WHEN tool = 'verify_result' THEN 'verify' WHEN tool IS NULL THEN 'other' ELSE 'tool' END"
)

# Roles as the chat dumps spell them, onto user | assistant | tool | system.
MESSAGE_ROLE = (
    "CASE WHEN lower(trim(role)) IN ('assistant','ai','bot','agent','model') THEN 'assistant' "
    "WHEN lower(trim(role)) IN ('user','human','customer') THEN 'user' "
    "WHEN lower(trim(role)) IN ('tool','function') THEN 'tool' "
    "WHEN lower(trim(role)) = 'system' THEN 'system' ELSE lower(trim(role)) END"
)
