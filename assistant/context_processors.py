"""Template context for the demo: the sign-in note and the retention presets on offer."""

from __future__ import annotations

from django.http import HttpRequest

from assistant.demo import demo_settings_get
from assistant.models import RETENTION_CHOICES


def demo(request: HttpRequest) -> dict[str, object]:
    settings_row = demo_settings_get()
    labels = dict(RETENTION_CHOICES)
    return {
        "demo_note": settings_row.signin_note,
        "demo_default_retention": settings_row.default_retention,
        # The panel's first words, before the server's mode arrives, must not promise memory.
        "demo_memory_enabled": settings_row.memory_enabled,
        "demo_retention_presets": [
            (value, labels[value]) for value in settings_row.retention_presets()
        ],
        # Every preset's label, also those not offered: a session may run with one of them.
        "retention_labels": labels,
    }
