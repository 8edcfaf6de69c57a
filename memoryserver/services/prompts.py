"""The prompt registry: create, version, archive, purge, and resolving a block's prompt."""

from __future__ import annotations

from django.db import transaction

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.errors import Conflict
from memoryserver.models import Prompt, PromptVersion
from memoryserver.services.common import WRITE_LOCK


def prompt_resolve(prompt_id: str, prompt_vid: int | None) -> tuple[str, int]:
    prompt = selectors.prompt_get(prompt_id=prompt_id)
    if prompt.archived:
        raise Conflict(f"prompt {prompt_id!r} is archived", code="PROMPT_ARCHIVED")
    vid = prompt.current_vid if prompt_vid is None else prompt_vid
    version = selectors.prompt_version_get(prompt=prompt, vid=vid)
    if version.archived:
        raise Conflict(f"prompt {prompt_id!r} version {vid} is archived", code="PROMPT_ARCHIVED")
    return prompt_id, vid


def prompt_create(
    *, prompt_id: str, text: str, description: str, annotations: dict[str, str] | None
) -> Prompt:
    with WRITE_LOCK:
        if Prompt.objects.filter(prompt_id=prompt_id).exists():
            raise Conflict(
                f"prompt {prompt_id!r} already exists (archived ids stay reserved)",
                code="PROMPT_ALREADY_EXISTS",
            )
        now = clock.now()
        with transaction.atomic(using=db_alias()):
            prompt = Prompt.objects.create(
                prompt_id=prompt_id,
                description=description,
                annotations=annotations or None,
                current_vid=0,
                last_updated_at=now,
            )
            PromptVersion.objects.create(prompt=prompt, vid=0, text=text, updated_at=now)
        return prompt


def prompt_update(
    *,
    prompt_id: str,
    text: str | None,
    description: str | None,
    annotations: dict[str, str] | None,
) -> Prompt:
    with WRITE_LOCK:
        prompt = selectors.prompt_get(prompt_id=prompt_id)
        if prompt.archived:
            raise Conflict(f"prompt {prompt_id!r} is archived", code="PROMPT_ARCHIVED")
        now = clock.now()
        with transaction.atomic(using=db_alias()):
            if text is not None:
                last = prompt.versions.order_by("-vid").first()
                vid = (last.vid + 1) if last else 0
                PromptVersion.objects.create(prompt=prompt, vid=vid, text=text, updated_at=now)
                prompt.current_vid = vid
            if description is not None:
                prompt.description = description
            if annotations is not None:
                prompt.annotations = annotations or None
            prompt.last_updated_at = now
            prompt.save()
        return prompt


def prompt_archive(*, prompt_id: str, vid: int | None) -> None:
    """Archive the whole prompt (vid None) or one version."""
    with WRITE_LOCK:
        prompt = selectors.prompt_get(prompt_id=prompt_id)
        if vid is None:
            if prompt.archived:
                raise Conflict(f"prompt {prompt_id!r} is already archived", code="PROMPT_ARCHIVED")
            prompt.archived = True
            prompt.save(update_fields=["archived"])
            prompt.versions.update(archived=True)
            return
        version = selectors.prompt_version_get(prompt=prompt, vid=vid)
        if version.archived:
            raise Conflict(
                f"prompt {prompt_id!r} version {vid} is already archived", code="PROMPT_ARCHIVED"
            )
        version.archived = True
        version.save(update_fields=["archived"])


def prompt_purge(*, prompt_id: str, vid: int | None) -> None:
    """Delete the prompt and free its id (vid None), or one non-current version."""
    with WRITE_LOCK:
        prompt = selectors.prompt_get(prompt_id=prompt_id)
        if vid is None:
            prompt.delete()
            return
        version = selectors.prompt_version_get(prompt=prompt, vid=vid)
        if vid == prompt.current_vid:
            raise Conflict(
                f"version {vid} is the current version of {prompt_id!r}",
                code="PROMPT_VERSION_CURRENT",
            )
        version.delete()
