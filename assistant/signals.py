"""Close a shopper's open chat sockets when their sign-in ends, tell every panel when staff
switch memory on or off, and tell a shopper's panels when memory says their memory changed
(docs/protocol.md, `signed_out`, `mode.changed` and `memory.changed`).

Each socket also checks the sign-in on its own before every frame; these pushes make the
panel say so at once, and stop a turn in flight before it writes memory. Each is sent once
the change is committed: a deactivation that is rolled back closes nothing.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model, user_logged_out
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from assistant.models import DemoSettings
from assistant.protocol.panels import memory_changed_send, memory_switched_send, shopper_ended_send
from memoryapp.public import ShopperMemory


@receiver(user_logged_out)
def _signed_out(sender, request, user, **kwargs) -> None:
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is None or not session_key:
        return
    # Only this browser's sign-in ends: the shopper's other browsers stay signed in.
    shopper_ended_send(account_id=user.pk, reason="signed_out", session_key=session_key)


@receiver(post_save, sender=get_user_model())
def _account_saved(sender, instance, **kwargs) -> None:
    if not instance.is_active:
        account_id = instance.pk
        transaction.on_commit(
            lambda: shopper_ended_send(account_id=account_id, reason="deactivated")
        )


@receiver(post_delete, sender=get_user_model())
def _account_deleted(sender, instance, **kwargs) -> None:
    account_id = instance.pk
    transaction.on_commit(lambda: shopper_ended_send(account_id=account_id, reason="deleted"))


@receiver(pre_save, sender=DemoSettings)
def _demo_settings_saving(sender, instance, **kwargs) -> None:
    before = DemoSettings.objects.filter(pk=instance.pk).values_list("memory_enabled", flat=True)
    instance._memory_enabled_before = next(iter(before), None)


@receiver(post_save, sender=DemoSettings)
def _demo_settings_saved(sender, instance, **kwargs) -> None:
    enabled = instance.memory_enabled
    # Only the switch itself: a panel whose last turn found memory unavailable must not be
    # told "remembering" because staff edited the sign-in note.
    if getattr(instance, "_memory_enabled_before", None) in (None, enabled):
        return
    transaction.on_commit(lambda: memory_switched_send(enabled=enabled))


@receiver(ShopperMemory.changed)
def _memory_changed(sender, *, account_id, reason, session_ids, block_id, **kwargs) -> None:
    # Sent after the change is made: a layer that cannot take it is logged, never raised.
    memory_changed_send(
        account_id=account_id, reason=reason, session_ids=session_ids, block_id=block_id
    )
