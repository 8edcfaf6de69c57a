"""The "Shopper memory" admin page: a shopper's Agent Memory user, read through the SDK.

Staff see every session and block stored for the shopper, with when each block expires,
and can delete one block; erasing everything of a shopper (memory and chat records) is the
assistant's `shopper_forget`, whose admin view sits beside this page. The page talks to
memory only through the SDK, like the chat path; with the server down it says so instead
of failing.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from memoryapp.records import RecordNotFound
from memoryapp.selectors import BLOCKS_PER_PAGE, shopper_memory_read
from memoryapp.services import record_delete
from memoryapp.types import MemoryUnavailable

# --- Views (wrapped by the admin site: staff only, CSRF-protected) -----------------------


def shopper_memory_url(shopper: Any) -> str:
    return reverse("admin:shop_demoshopper_memory", args=[shopper.pk])


def shopper_memory_view(
    request: HttpRequest, *, shopper: Any, context: dict[str, Any]
) -> TemplateResponse:
    try:
        offset = int(request.GET.get("offset", "0"))
    except ValueError:
        offset = 0
    username = shopper.user.username
    status = 200
    try:
        memory = shopper_memory_read(username=username, offset=offset)
        error = None
    except MemoryUnavailable as exc:
        memory, error, status = None, str(exc), 503
    shown_to = (memory.offset + len(memory.blocks)) if memory else 0
    context.update(
        {
            "title": f"Shopper memory: {shopper.display_name} ({username})",
            "shopper": shopper,
            "username": username,
            "memory": memory,
            "memory_error": error,
            "shown_from": (memory.offset + 1) if memory and memory.blocks else 0,
            "shown_to": shown_to,
            "newer_offset": max(0, memory.offset - BLOCKS_PER_PAGE) if memory else 0,
            "older_offset": shown_to if memory and shown_to < memory.total_blocks else None,
        }
    )
    return TemplateResponse(request, "admin/memoryapp/shopper_memory.html", context, status=status)


@require_POST
def shopper_memory_block_delete_view(request: HttpRequest, *, shopper: Any) -> HttpResponse:
    block_id = request.POST.get("block_id", "").strip()
    try:
        record_delete(username=shopper.user.username, block_id=block_id)
    except RecordNotFound:
        messages.warning(request, f"No block {block_id} in this shopper's memory: nothing deleted.")
    except MemoryUnavailable as exc:
        messages.error(request, f"Agent Memory is unavailable; block {block_id} was kept ({exc}).")
    else:
        messages.success(request, f"Deleted block {block_id}.")
    return HttpResponseRedirect(shopper_memory_url(shopper))
