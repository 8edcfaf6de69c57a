"""Waiting for background work that has no completion event to wait on."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll until `check()` holds; background work has no completion event to wait on."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()
