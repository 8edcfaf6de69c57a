"""Tables of the embedded Agent Memory server; they live in the `agentmemory` database only."""

from __future__ import annotations

from django.db import models


class MemoryUser(models.Model):
    user_id = models.CharField(max_length=255, unique=True)
    name = models.CharField(max_length=255)
    metadata = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.user_id


class MemorySession(models.Model):
    user = models.ForeignKey(MemoryUser, on_delete=models.CASCADE, related_name="sessions")
    session_id = models.CharField(max_length=255)
    start_time = models.DateTimeField()
    end_time = models.DateTimeField(null=True, blank=True)
    annotations = models.JSONField(null=True, blank=True)
    metadata = models.JSONField(null=True, blank=True)
    blocks_ttl = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "session_id"], name="am_session_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}/{self.session_id}"


class BlockStatus(models.TextChoices):
    PROCESSING = "processing"
    READY = "ready"
    EXTRACTION_FAILED = "extraction_failed"


class MemoryBlock(models.Model):
    """One stored message or fact. `user_key`/`session_key` duplicate the ids for cheap filters."""

    block_id = models.CharField(max_length=64, unique=True)
    session = models.ForeignKey(MemorySession, on_delete=models.CASCADE, related_name="blocks")
    user_key = models.CharField(max_length=255)
    session_key = models.CharField(max_length=255)
    fact = models.TextField(null=True, blank=True)  # noqa: DJ001 (null means absent, as the API says)
    user_content = models.TextField(null=True, blank=True)  # noqa: DJ001 (null means absent, as the API says)
    assistant_content = models.TextField(null=True, blank=True)  # noqa: DJ001 (null means absent, as the API says)
    annotations = models.JSONField(null=True, blank=True)
    ingested_at = models.DateTimeField()
    created_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_queued_at = models.DateTimeField(null=True, blank=True)
    fail_count = models.PositiveIntegerField(default=0)
    # Bumped on every content change so a late extraction result for old text is dropped.
    revision = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=20, choices=BlockStatus.choices)
    context_required = models.BooleanField(default=True)
    summary = models.TextField(null=True, blank=True)  # noqa: DJ001 (null means absent, as the API says)
    contexts = models.JSONField(null=True, blank=True)
    prompt_id = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001 (null means absent, as the API says)
    prompt_vid = models.PositiveIntegerField(null=True, blank=True)
    embedding = models.BinaryField()
    # A block of two sentences or more: each sentence's vector, the rows of a float32 matrix
    # (`memoryserver.index.sentences`); null for one sentence.
    sentence_embeddings = models.BinaryField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["user_key", "ingested_at"], name="am_block_user_ingested"),
            models.Index(fields=["user_key", "created_at"], name="am_block_user_created"),
            models.Index(fields=["expires_at"], name="am_block_expires"),
            models.Index(fields=["status"], name="am_block_status"),
        ]

    def __str__(self) -> str:
        return self.block_id

    @property
    def is_fact(self) -> bool:
        return self.fact is not None

    @property
    def text(self) -> str:
        """The text that is embedded and extracted from."""
        if self.fact is not None:
            return self.fact
        parts = [p for p in (self.user_content, self.assistant_content) if p]
        return "\n".join(parts)


class Prompt(models.Model):
    prompt_id = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=200)
    annotations = models.JSONField(null=True, blank=True)
    current_vid = models.PositiveIntegerField(default=0)
    archived = models.BooleanField(default=False)
    last_updated_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.prompt_id


class PromptVersion(models.Model):
    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="versions")
    vid = models.PositiveIntegerField()
    text = models.TextField()
    updated_at = models.DateTimeField()
    archived = models.BooleanField(default=False)

    class Meta:
        ordering = ["vid"]
        constraints = [models.UniqueConstraint(fields=["prompt", "vid"], name="am_prompt_vid")]

    def __str__(self) -> str:
        return f"{self.prompt_id}@{self.vid}"
