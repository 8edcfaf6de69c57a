"""Read the JSON payload a role prompt (judge, extractor, episode writer) carries."""

from __future__ import annotations

import json

from llm.prompts import content_text


def payload_read(messages: list[dict]) -> dict:
    """Return the JSON object after the header line of the last user message, or {}."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        text = content_text(message.get("content"))
        start = text.find("{")
        if start < 0:
            return {}
        try:
            value = json.loads(text[start:])
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def last_user_text(messages: list[dict]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""
