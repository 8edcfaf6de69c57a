"""Typed readers for settings that come from the environment.

A malformed value never stops the process: it falls back to its default with one
warning naming the variable, so a typo in `.env` degrades one knob, not the shop.
"""

from __future__ import annotations

import logging
import os

logger = logging.getLogger("config")

_warned: set[str] = set()


def _warn_once(name: str, raw: str, default: object) -> None:
    if name not in _warned:
        _warned.add(name)
        logger.warning("%s=%r is not valid; using the default %r", name, raw, default)


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        _warn_once(name, raw, default)
        return default
    if minimum is not None and value < minimum:
        _warn_once(name, raw, default)
        return default
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        _warn_once(name, raw, default)
        return default
    if minimum is not None and value < minimum:
        _warn_once(name, raw, default)
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    _warn_once(name, raw, default)
    return default


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_rates(name: str, default: dict[str, float]) -> dict[str, float]:
    """Currency rates as "GBP:1.17,USD:0.92" (euros for one unit); "none" for no rates."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return dict(default)
    if raw.strip().lower() == "none":
        return {}
    rates: dict[str, float] = {}
    for item in raw.split(","):
        code, _, figure = item.strip().partition(":")
        try:
            rate = float(figure)
        except ValueError:
            rate = 0.0
        if len(code.strip()) != 3 or not code.strip().isalpha() or not 0 < rate < 1000:
            _warn_once(name, raw, default)
            return dict(default)
        rates[code.strip().upper()] = rate
    return rates
