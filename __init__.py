"""trace-audit: audit what LLM agents said against what they did.

The checkout root is this package; its rooms are the folders (see docs/architecture.md).
"""
