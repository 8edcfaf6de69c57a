"""Staff's view of whose memory is whose, and of deleted accounts' memory still to erase."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model

from memoryapp.erasure import memory_erasures_retry
from memoryapp.models import MemoryAccount, MemoryErasure


@admin.register(MemoryAccount)
class MemoryAccountAdmin(admin.ModelAdmin):
    list_display = ("user", "memory_user_id", "created_at")
    search_fields = ("user__username", "memory_user_id")
    readonly_fields = ("user", "memory_user_id", "created_at")

    def has_add_permission(self, request) -> bool:
        return False  # minted on an account's first need of memory, never by hand

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # an id changed by hand would hand the memory to nobody, or to another


@admin.register(MemoryErasure)
class MemoryErasureAdmin(admin.ModelAdmin):
    list_display = ("username", "memory_user_id", "requested_at", "attempts", "last_error")
    readonly_fields = (*list_display, "last_attempt_at")
    actions = ["erase_now"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # a mark goes only once the memory is erased

    def has_erase_permission(self, request) -> bool:
        # Retrying an erasure staff already asked for: whoever may delete accounts may.
        meta = get_user_model()._meta
        return request.user.has_perm(f"{meta.app_label}.delete_{meta.model_name}")

    @admin.action(description="Erase their memory now", permissions=["erase"])
    def erase_now(self, request, queryset) -> None:
        run = memory_erasures_retry(
            memory_user_ids=list(queryset.values_list("memory_user_id", flat=True))
        )
        if run.erased:
            self.message_user(request, f"Erased the memory of {', '.join(run.erased)}.")
        for username, reason in run.pending.items():
            self.message_user(
                request,
                f"{username}: Agent Memory could not erase it ({reason}); still marked.",
                messages.ERROR,
            )
