"""The one factory for model clients (placeholder until the offline model lands)."""

from __future__ import annotations

from django.conf import settings


def model_mode() -> str:
    """Return "openai" when an API key is configured, else "offline"."""
    return "openai" if settings.OPENAI_API_KEY else "offline"
