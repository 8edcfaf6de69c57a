"""The channel-layer group of a shopper's open chat panels."""

from __future__ import annotations

import hashlib


def shopper_group(username: str) -> str:
    """A valid group name for any username (Channels allows only [A-Za-z0-9._-], < 100 chars)."""
    digest = hashlib.sha256(username.encode("utf-8", "surrogatepass")).hexdigest()
    return f"shopper.{digest[:40]}"
