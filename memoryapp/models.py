"""Which Agent Memory user holds each account's memory, and the memory of deleted accounts
still to erase (`memoryapp.accounts` says why and how)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class MemoryAccount(models.Model):
    """The Agent Memory user an account's memory is filed under: minted for the account,
    never read off its username."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_account"
    )
    memory_user_id = models.CharField(max_length=100, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "account's memory user"
        verbose_name_plural = "accounts' memory users"

    def __str__(self) -> str:
        return f"{self.user} · {self.memory_user_id}"


class MemoryErasure(models.Model):
    """A deleted account's memory that Agent Memory has not yet erased: marked in the
    deletion's own transaction, removed once the memory user is gone."""

    memory_user_id = models.CharField(max_length=100, unique=True)
    username = models.CharField(max_length=150, help_text="The account's name when deleted.")
    requested_at = models.DateTimeField(auto_now_add=True)
    attempts = models.PositiveIntegerField(default=0)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["requested_at"]
        verbose_name = "memory erasure pending"
        verbose_name_plural = "memory erasures pending"

    def __str__(self) -> str:
        return f"{self.username} · {self.memory_user_id}"
