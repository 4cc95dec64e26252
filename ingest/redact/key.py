"""The HMAC key tokens are made with: where it comes from, and the key file created beside the database."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import RedactionConfig

KEY_ENV = "TRACE_AUDIT_REDACTION_KEY"
MIN_KEY_CHARS = 16


class RedactionKeyError(ValueError):
    """The HMAC key could not be obtained; the message says what to do."""


def key_file_for(db_path: str | os.PathLike) -> Path:
    return Path(str(db_path) + ".key")


def resolve_key(config: RedactionConfig, db_path: str | os.PathLike | None) -> bytes:
    """The HMAC key: `[redaction] key`, else $TRACE_AUDIT_REDACTION_KEY, else `<db>.key` (created once, mode 0600)."""
    from_config = config.key.get_secret_value() if config.key is not None else None
    from_env = os.environ.get(KEY_ENV) or None
    if from_config and from_env and from_config != from_env:
        raise RedactionKeyError(
            f"the redaction key is set both in trace-audit.toml [redaction] key and in ${KEY_ENV}, "
            "and they differ; keep one of them (the same value must be used for every ingest)"
        )
    chosen = from_config or from_env
    if chosen:
        if len(chosen) < MIN_KEY_CHARS:
            raise RedactionKeyError(f"${KEY_ENV} must be at least {MIN_KEY_CHARS} characters "
                                    "(generate one with `openssl rand -hex 32`)")
        return chosen.encode("utf-8")
    if db_path is None:
        from ...queries.warehouse.db import default_db_path

        db_path = default_db_path()
    if str(db_path) == ":memory:":
        return secrets.token_bytes(32)  # nothing persists, so neither does the key
    return _key_from_file(key_file_for(db_path))


def _key_from_file(path: Path) -> bytes:
    if not path.exists():
        _create_key_file(path)
    try:
        st = path.stat()
        if os.name == "posix" and st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise RedactionKeyError(
                f"redaction key file {path} can be read by other users (mode {stat.S_IMODE(st.st_mode):o}); "
                f"run: chmod 600 {path}"
            )
        text = path.read_text("ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise RedactionKeyError(f"cannot read redaction key file {path}: {exc}") from exc
    if len(text) < MIN_KEY_CHARS:
        raise RedactionKeyError(
            f"redaction key file {path} holds {len(text)} characters; it must hold at least {MIN_KEY_CHARS}. "
            "Restore it from your backup (tokens made with another key will not match)."
        )
    return text.encode("ascii")


def _create_key_file(path: Path) -> None:
    # Write a private temp file, then link it into place: a concurrent ingest
    # either wins the link or reads the winner's complete key, never half a file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(32) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:
            # File systems without hard links: create in place, exclusively.
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(tmp.read_text("ascii"))
    except OSError as exc:
        raise RedactionKeyError(f"cannot create redaction key file {path}: {exc.strerror or exc}; "
                                f"set ${KEY_ENV} instead") from exc
    finally:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
