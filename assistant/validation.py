"""Parse client frames strictly: a bad frame gets a clear error and writes nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from memoryapp.conf import RETENTION_PRESETS

MAX_TEXT_CHARS = 4000
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class FrameError(ValueError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class TurnRequest:
    text: str
    session_id: str | None
    turn_count: int
    session_date: date | None
    retention: str | None


@dataclass(frozen=True)
class CloseRequest:
    session_id: str | None


def frame_decode(raw: str | None) -> dict[str, Any]:
    if raw is None:
        raise FrameError(400, "Frames must be JSON text.")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        raise FrameError(400, "That frame is not valid JSON.") from None
    if not isinstance(data, dict):
        raise FrameError(400, "A frame must be a JSON object with a type.")
    return data


def _session_id(data: dict[str, Any]) -> str | None:
    value = data.get("session_id")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "/" in value or len(value) > 100:
        raise FrameError(400, "session_id must be null or a short id without '/'.")
    return value.strip()


def turn_request_parse(data: dict[str, Any]) -> TurnRequest:
    text = data.get("text")
    if not isinstance(text, str):
        raise FrameError(400, "text is required and must be a string.")
    text = text.strip()
    if not text:
        raise FrameError(400, "Type a message first.")
    if len(text) > MAX_TEXT_CHARS:
        raise FrameError(400, f"Messages are limited to {MAX_TEXT_CHARS} characters.")
    turn_count = data.get("turn_count", 0)
    if isinstance(turn_count, bool) or not isinstance(turn_count, int) or turn_count < 0:
        raise FrameError(400, "turn_count must be a whole number, 0 or more.")
    raw_date = data.get("session_date")
    session_date = None
    if raw_date is not None and raw_date != "":
        if not isinstance(raw_date, str) or not _DATE.match(raw_date):
            raise FrameError(422, "session_date must be a date written YYYY-MM-DD.")
        try:
            session_date = date.fromisoformat(raw_date)
        except ValueError:
            raise FrameError(422, f"{raw_date} is not a real date (YYYY-MM-DD).") from None
    retention = data.get("retention")
    if retention is not None and retention not in RETENTION_PRESETS:
        raise FrameError(400, f"retention must be one of: {', '.join(RETENTION_PRESETS)}.")
    return TurnRequest(
        text=text,
        session_id=_session_id(data),
        turn_count=turn_count,
        session_date=session_date,
        retention=retention,
    )


def close_request_parse(data: dict[str, Any]) -> CloseRequest:
    return CloseRequest(session_id=_session_id(data))
