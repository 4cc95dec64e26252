"""trace-audit: audit what LLM agents said against what they did.

The checkout root is this package; its rooms are the folders (see docs/architecture.md).
"""


def __getattr__(name: str):
    # `from trace_audit import open_warehouse`: the analysts' API (queries/api.py), imported on
    # first use so that the CLI does not pay for it.
    if name in ("open_warehouse", "Warehouse"):
        from .queries import api

        return getattr(api, name)
    raise AttributeError(f"module 'trace_audit' has no attribute {name!r}")
