"""Network facts shared by the commands that serve (dashboard, OTLP receiver)."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """True when `host` is reachable from this machine only (localhost, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
