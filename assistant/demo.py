"""Reads of the demo settings row."""

from __future__ import annotations

from assistant.models import DemoSettings


def demo_settings_get() -> DemoSettings:
    settings_row, _ = DemoSettings.objects.get_or_create(pk=1)
    return settings_row
