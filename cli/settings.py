"""What `trace-audit.toml` says to the commands that write: the `[redaction]` section, typed.

The rules' part of the file is typed in `queries/config.py`; the redaction section is typed here,
by the redaction room's own model, so `queries/` never depends on `ingest/`. `ingest` and
`serve-otlp` both read it through this one function, so the receiver redacts as ingest does.
"""

from __future__ import annotations

from pydantic import ValidationError

from ..ingest.redact.config import RedactionConfig
from ..queries.config import DEFAULT_CONFIG_NAME, ConfigError, explain_validation, load_config
from .errors import UserError


def redaction_settings(config_path: str | None, disabled: bool = False) -> RedactionConfig:
    """The `[redaction]` section of `config_path` (default ./trace-audit.toml if present)."""
    try:
        cfg = load_config(config_path)
        try:
            redaction = RedactionConfig.model_validate(cfg.redaction)
        except ValidationError as exc:
            raise ConfigError(explain_validation(exc, config_path or DEFAULT_CONFIG_NAME, "redaction.")) from None
    except ConfigError as exc:
        raise UserError(str(exc)) from exc
    if disabled:
        redaction = redaction.model_copy(update={"enabled": False})
    return redaction
