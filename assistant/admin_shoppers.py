"""Hook the "Shopper memory" page and "erase" onto the demo-shopper admin.

The page belongs to the memory app, the shopper list to the shop, forgetting a shopper
(memory and chat records) to the assistant. The assistant app is the one that may know all
three, so they meet here: neither the shop nor the memory app imports the other.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from assistant.records.shoppers import shopper_chat_sessions_count, shopper_forget
from memoryapp.public import MemoryUnavailable, ShopperMemory, staff
from shop.admin import DemoShopperAdmin
from shop.models import DemoShopper

admin.site.unregister(DemoShopper)


@admin.register(DemoShopper)
class DemoShopperMemoryAdmin(DemoShopperAdmin):
    list_display = (*DemoShopperAdmin.list_display, "memory_link")
    readonly_fields = ("memory_link",)

    @admin.display(description="memory")
    def memory_link(self, shopper: DemoShopper) -> str:
        if shopper.pk is None:
            return "—"
        url = reverse("admin:shop_demoshopper_memory", args=[shopper.pk])
        return format_html('<a href="{}">Shopper memory</a>', url)

    def get_urls(self) -> list:
        wrap = self.admin_site.admin_view
        return [
            path(
                "<int:pk>/memory/",
                wrap(self.memory_view),
                name="shop_demoshopper_memory",
            ),
            path(
                "<int:pk>/memory/blocks/<str:block_id>/delete/",
                wrap(self.memory_block_delete_view),
                name="shop_demoshopper_memory_delete_block",
            ),
            path(
                "<int:pk>/memory/erase/",
                wrap(self.memory_erase_view),
                name="shop_demoshopper_memory_erase",
            ),
            *super().get_urls(),
        ]

    def _shopper(self, request: HttpRequest, pk: int, *, write: bool) -> DemoShopper:
        allowed = (
            self.has_delete_permission(request) if write else self.has_view_permission(request)
        )
        if not allowed:
            raise PermissionDenied
        shopper = get_object_or_404(DemoShopper.objects.select_related("user"), pk=pk)
        if shopper.user.is_staff or shopper.user.is_superuser:
            raise Http404("Staff accounts have no shopper memory.")
        return shopper

    def _context(self, request: HttpRequest, shopper: DemoShopper) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": shopper,
            "can_delete": self.has_delete_permission(request),
        }

    def memory_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        shopper = self._shopper(request, pk, write=False)
        return staff.shopper_memory_view(
            request, shopper=shopper, context=self._context(request, shopper)
        )

    def memory_block_delete_view(
        self, request: HttpRequest, pk: int, block_id: str
    ) -> HttpResponse:
        """Ask first (GET), then delete the block (POST), as the admin's own deletes do."""
        if request.method not in ("GET", "POST"):
            return HttpResponseNotAllowed(["GET", "POST"])
        shopper = self._shopper(request, pk, write=True)
        return staff.shopper_memory_block_delete_view(
            request, shopper=shopper, block_id=block_id, context=self._context(request, shopper)
        )

    def memory_erase_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Ask first; on POST forget the shopper exactly as `forget_shopper` does."""
        shopper = self._shopper(request, pk, write=True)
        username = shopper.user.username
        memory_url = staff.shopper_memory_url(shopper)
        if request.method != "POST":
            context = {
                **self._context(request, shopper),
                "title": f"Erase {shopper.display_name}'s memory?",
                "shopper": shopper,
                "username": username,
                "memory_user_id": ShopperMemory(account=shopper.user).memory_user_id,
                "memory_url": memory_url,
                "chat_sessions": shopper_chat_sessions_count(user=shopper.user),
            }
            return TemplateResponse(request, "admin/assistant/shopper_forget.html", context)
        try:
            forgotten = shopper_forget(user=shopper.user)
        except MemoryUnavailable as exc:
            messages.error(request, f"Agent Memory is unavailable; nothing was erased ({exc}).")
            return HttpResponseRedirect(memory_url)
        memory = (
            f"Erased everything Agent Memory kept for {username}"
            if forgotten.had_memory
            else f"{username} had nothing remembered"
        )
        messages.success(
            request,
            f"{memory}; {forgotten.chat_sessions} chat session record(s) and "
            f"{forgotten.chat_turns} turn(s) deleted.",
        )
        return HttpResponseRedirect(memory_url)
