"""Users: create, update, delete (with every block they own)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.errors import Conflict
from memoryserver.index.registry import get_registry
from memoryserver.models import MemoryBlock, MemoryUser
from memoryserver.services.common import WRITE_LOCK


def user_create(*, user_id: str, name: str, metadata: dict[str, Any] | None) -> MemoryUser:
    with WRITE_LOCK:
        if MemoryUser.objects.filter(user_id=user_id).exists():
            raise Conflict(
                f"user {user_id!r} already exists",
                code="USER_ALREADY_EXISTS",
                details={"user_id": user_id},
            )
        return MemoryUser.objects.create(
            user_id=user_id, name=name, metadata=metadata, created_at=clock.now()
        )


def user_update(
    *, user_id: str, name: str | None, metadata: dict[str, Any] | None, set_metadata: bool
) -> MemoryUser:
    with WRITE_LOCK:
        user = selectors.user_get(user_id=user_id)
        if name is not None:
            user.name = name
        if set_metadata:
            user.metadata = metadata  # replaced, not merged (spec C13)
        user.save()
        return user


def user_delete(*, user_id: str) -> None:
    with WRITE_LOCK:
        user = selectors.user_get(user_id=user_id)
        with transaction.atomic(using=db_alias()):
            MemoryBlock.objects.filter(user_key=user_id).delete()
            user.delete()
        get_registry().drop(user_id)
