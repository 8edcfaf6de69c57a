from __future__ import annotations

from django.conf import settings
from django.db import models

from memoryapp.public import RETENTION

# The demo settings', the admin's and the API's choices, from memory's one definition.
RETENTION_CHOICES: list[tuple[str, str]] = [(p.name, p.label) for p in RETENTION]


class ChatSession(models.Model):
    """One conversation in the chat panel; the memory text itself lives only in Agent Memory."""

    shopper = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_sessions"
    )
    memory_session_id = models.CharField(max_length=100)
    session_date = models.DateField(null=True, blank=True)
    retention = models.CharField(max_length=20, blank=True)
    retention_seconds = models.PositiveIntegerField(null=True, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="When memory ended the session (its summary written)."
    )
    close_requested_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the shopper closed the panel; set with no closed_at, the close is "
        "pending (memory could not be reached) and is retried on their next healthy turn.",
    )
    close_note = models.CharField(
        max_length=300, blank=True, help_text="What happened when the visit was closed."
    )
    turn_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["shopper", "memory_session_id"], name="chat_session_unique_per_shopper"
            )
        ]

    def __str__(self) -> str:
        return f"{self.shopper} · {self.memory_session_id}"


class ChatTurn(models.Model):
    """What one turn recalled and saved (block ids and scores, never text) and how long it took."""

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="turns")
    index = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    model = models.CharField(max_length=100, blank=True)
    recalled = models.JSONField(default=list, blank=True)
    saved = models.JSONField(default=dict, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    tools = models.JSONField(default=list, blank=True)
    error = models.CharField(max_length=300, blank=True)
    stopped = models.BooleanField(
        default=False, help_text="The shopper stopped this turn: nothing of it was remembered."
    )

    class Meta:
        ordering = ["session_id", "index"]
        constraints = [
            # Two turns racing for the next number: the loser retries with a fresh read.
            models.UniqueConstraint(fields=["session", "index"], name="chat_turn_unique_index")
        ]

    def __str__(self) -> str:
        return f"{self.session} · turn {self.index}"


class DemoSettings(models.Model):
    """The demo's knobs, one row, edited in the admin."""

    RETENTION_CHOICES = RETENTION_CHOICES

    default_retention = models.CharField(
        max_length=10, choices=RETENTION_CHOICES, default="default"
    )
    presets_offered = models.JSONField(
        default=list,
        blank=True,
        help_text='Retention presets shown in the panel, e.g. ["default", "1m", "1h"]; empty = all.',
    )
    memory_enabled = models.BooleanField(
        default=True, help_text="Off: every chat is stateless, to show the difference memory makes."
    )
    signin_note = models.CharField(
        max_length=300, blank=True, help_text="Shown on the sign-in page."
    )

    class Meta:
        verbose_name = "demo settings"
        verbose_name_plural = "demo settings"

    def __str__(self) -> str:
        return "Demo settings"

    def retention_presets(self) -> list[str]:
        valid = [value for value, _ in self.RETENTION_CHOICES]
        chosen = [p for p in (self.presets_offered or []) if p in valid]
        return chosen or valid
