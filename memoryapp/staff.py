"""Staff's way into a shopper's memory: the "Shopper memory" admin page.

The page shows every session and block stored for the shopper, with when each block
expires, and deletes one block after staff confirm it; with the server down it says so
instead of failing. The reads and the erase the shop's other staff tools need (a session's
block texts for the chat records' admin, forgetting a shopper) are the shopper's face's,
`memoryapp.shopper.ShopperMemory`. All of it talks to memory through the SDK only, like the
chat path.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import Truncator

from memoryapp.accounts import account_memory_user_id
from memoryapp.erasure import record_delete
from memoryapp.markup import markdown_strip
from memoryapp.records import MemoryRecord, RecordNotFound
from memoryapp.selectors import (
    BLOCKS_PER_PAGE,
    MAX_LIST_OFFSET,
    record_read,
    shopper_memory_read,
)
from memoryapp.types import MemoryRefused, MemoryUnavailable

__all__ = [
    "record_described",
    "shopper_memory_block_delete_view",
    "shopper_memory_url",
    "shopper_memory_view",
]

# What staff call each kind of record in a sentence.
KIND_NAMES = {"fact": "fact", "turn": "exchange", "episode": "visit summary"}
MESSAGE_WORDS = 24


def _offset(request: HttpRequest, source: Any) -> int:
    """The page's offset: a missing or garbled one is the first page (a link back from a
    deletion carries it); one past the server's bound is refused by `_offset_refusal`."""
    raw = str(source.get("offset", "0")).strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 10:
        return 0
    return min(int(raw), MAX_LIST_OFFSET)


def _offset_refusal(source: Any) -> str | None:
    """Why the offset asked for cannot be shown, or None: checked before memory is called."""
    raw = str(source.get("offset", "0")).strip() or "0"
    # Length first: int() of a few thousand digits is itself an error.
    if raw.isascii() and raw.isdigit() and len(raw) <= 10 and int(raw) <= MAX_LIST_OFFSET:
        return None
    return f"The offset must be a whole number from 0 to {MAX_LIST_OFFSET:,}; got {raw[:40]!r}."


def record_described(record: MemoryRecord) -> str:
    """ "the fact “The shopper wears size M.”": the words staff recognise, never an id."""
    kind = "superseded fact" if record.superseded else KIND_NAMES.get(record.kind, "record")
    words = Truncator(markdown_strip(record.text)).words(MESSAGE_WORDS, truncate="…")
    return f"the {kind} “{words}”"


# --- Views (wrapped by the admin site: staff only, CSRF-protected) -----------------------


def shopper_memory_url(shopper: Any, *, offset: int = 0) -> str:
    url = reverse("admin:shop_demoshopper_memory", args=[shopper.pk])
    return f"{url}?offset={offset}" if offset else url


def shopper_memory_view(
    request: HttpRequest, *, shopper: Any, context: dict[str, Any]
) -> TemplateResponse:
    offset = _offset(request, request.GET)
    username = shopper.user.username
    memory_user_id = account_memory_user_id(account=shopper.user)
    status = 200
    memory, error = None, None
    offset_error = _offset_refusal(request.GET)
    if offset_error is not None:
        status = 400
    else:
        try:
            memory = shopper_memory_read(user_id=memory_user_id, offset=offset)
        except MemoryRefused as exc:
            offset_error, status = f"Agent Memory refused to list this page ({exc}).", 400
        except MemoryUnavailable as exc:
            error, status = str(exc), 503
    shown_to = (memory.offset + len(memory.blocks)) if memory else 0
    context.update(
        {
            "title": f"Shopper memory: {shopper.display_name} ({username})",
            "shopper": shopper,
            "username": username,
            "memory_user_id": memory_user_id,
            "memory": memory,
            "memory_error": error,
            "offset_error": offset_error,
            "first_page_url": shopper_memory_url(shopper),
            "shown_from": (memory.offset + 1) if memory and memory.blocks else 0,
            "shown_to": shown_to,
            "newer_offset": max(0, memory.offset - BLOCKS_PER_PAGE) if memory else 0,
            "older_offset": shown_to if memory and shown_to < memory.total_blocks else None,
        }
    )
    return TemplateResponse(request, "admin/memoryapp/shopper_memory.html", context, status=status)


def shopper_memory_block_delete_view(
    request: HttpRequest, *, shopper: Any, block_id: str, context: dict[str, Any]
) -> HttpResponse:
    """Show the block and ask first (GET); delete it and name it in the message (POST)."""
    username = shopper.user.username
    memory_user_id = account_memory_user_id(account=shopper.user)
    source = request.POST if request.method == "POST" else request.GET
    back = shopper_memory_url(shopper, offset=_offset(request, source))
    try:
        record = record_read(user_id=memory_user_id, block_id=block_id)
    except RecordNotFound:
        messages.warning(request, f"No block {block_id} in this shopper's memory: nothing deleted.")
        return HttpResponseRedirect(back)
    except MemoryUnavailable as exc:
        messages.error(request, f"Agent Memory is unavailable; block {block_id} was kept ({exc}).")
        return HttpResponseRedirect(back)
    described = record_described(record)
    if request.method != "POST":
        context.update(
            {
                "title": "Are you sure?",
                "shopper": shopper,
                "username": username,
                "record": record,
                "record_kind": KIND_NAMES.get(record.kind, "record"),
                "memory_url": back,
                "offset": _offset(request, source),
            }
        )
        return TemplateResponse(request, "admin/memoryapp/shopper_memory_delete.html", context)
    try:
        record_delete(account=shopper.user, block_id=block_id)
    except RecordNotFound:
        messages.warning(
            request, f"{described[0].upper()}{described[1:]} was already gone: nothing deleted."
        )
    except MemoryUnavailable as exc:
        messages.error(request, f"Agent Memory is unavailable; {described} was kept ({exc}).")
    else:
        messages.success(request, f"Deleted {described}")
    return HttpResponseRedirect(back)
