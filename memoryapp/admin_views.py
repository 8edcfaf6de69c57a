"""The "Shopper memory" admin page: a shopper's Agent Memory user, read through the SDK.

Staff see every session and block stored for the shopper, can delete one block, or erase
the whole memory user. The page talks to memory only through the SDK, like the chat path;
with the server down it says so instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from agentmemory.exceptions import NotFoundError
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from memoryapp.clients import memory_client_sync
from memoryapp.conf import memory_conf, retention_preset_for
from memoryapp.guard import MEMORY_ERRORS, outages
from memoryapp.records import RecordNotFound, record_delete, record_from_block
from memoryapp.render import SUPERSEDED
from memoryapp.types import MemoryUnavailable

BLOCKS_PER_PAGE = 100
MAX_SESSIONS = 500


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    start_time: str | None
    end_time: str | None
    session_date: str | None
    retention: str
    blocks_ttl: int | None


@dataclass(frozen=True)
class BlockRow:
    block_id: str
    session_id: str
    kind: str
    annotations: dict[str, str]
    text: str
    created_at: str | None
    ingested_at: str
    status: str
    expires: str
    superseded: bool = False


@dataclass(frozen=True)
class ShopperMemory:
    exists: bool
    sessions: list[SessionRow]
    blocks: list[BlockRow]
    total_blocks: int
    offset: int


def _ttl_label(seconds: int | None) -> str:
    if seconds is None:
        return "server default"
    if seconds == 0:
        return "never expire"
    preset = retention_preset_for(seconds)
    days, rest = divmod(seconds, 86_400)
    plain = f"{days} d" if days and not rest else f"{seconds} s"
    return f"{preset} ({plain})" if preset else plain


def _expiry(block: Any, ttl: int | None) -> str:
    """Expiry as the server computes it (write time + TTL), when the TTL is known."""
    explicit = getattr(block, "expires_at", None)
    if explicit:
        return str(explicit)
    if ttl is None:
        return "unknown"
    if ttl == 0:
        return "never"
    try:
        written = datetime.fromisoformat(block.ingested_at.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return "unknown"
    return (written + timedelta(seconds=ttl)).isoformat(timespec="seconds")


def _block_ttl(block: Any, session_ttls: dict[str, int | None], fact_ttl: int) -> int | None:
    # The SDK does not return a block's own TTL; the memory policy is its only writer, and
    # it passes one only for facts and their history (MEMORY_FACT_TTL_SECONDS). Everything
    # else inherits the session's TTL.
    if (block.annotations or {}).get("type") in ("fact", SUPERSEDED):
        return fact_ttl
    return session_ttls.get(block.session_id)


def shopper_memory_read(*, username: str, offset: int = 0) -> ShopperMemory:
    """The shopper's sessions and one page of blocks, newest first. Raises MemoryUnavailable."""
    try:
        with memory_client_sync() as client:
            try:
                user = client.get_user(username)
            except NotFoundError:
                return ShopperMemory(False, [], [], 0, 0)
            sessions = user.list_sessions(limit=MAX_SESSIONS).sessions if user.sessions else []
            page = user.list_memories(
                limit=BLOCKS_PER_PAGE, offset=max(0, offset), order_by="ingested_at"
            )
    except NotFoundError:  # erased between the two calls
        return ShopperMemory(False, [], [], 0, 0)
    except MEMORY_ERRORS as exc:
        outages.failed("read", "the admin's shopper memory page", exc)
        raise MemoryUnavailable(str(exc) or type(exc).__name__) from exc
    outages.succeeded("read")
    session_rows = [
        SessionRow(
            session_id=s.session_id,
            start_time=s.start_time,
            end_time=s.end_time,
            session_date=(s.metadata or {}).get("session_date"),
            retention=_ttl_label(s.blocks_ttl),
            blocks_ttl=s.blocks_ttl,
        )
        for s in sorted(sessions, key=lambda s: s.start_time or "", reverse=True)
    ]
    session_ttls = {s.session_id: s.blocks_ttl for s in sessions}
    fact_ttl = memory_conf().fact_ttl_seconds
    blocks = []
    for block in page.memory_blocks:
        record = record_from_block(block)
        blocks.append(
            BlockRow(
                block_id=record.block_id,
                session_id=record.session_id,
                kind=record.kind,
                annotations=dict(block.annotations or {}),
                text=record.text,
                created_at=record.created_at,
                ingested_at=record.ingested_at,
                status=record.status,
                expires=_expiry(block, _block_ttl(block, session_ttls, fact_ttl)),
                superseded=record.superseded,
            )
        )
    return ShopperMemory(True, session_rows, blocks, page.total, max(0, offset))


def shopper_memory_erase(*, username: str) -> bool:
    """Delete the shopper's Agent Memory user; False when there was none. Raises MemoryUnavailable."""
    try:
        with memory_client_sync() as client:
            client.delete_user(username)
    except NotFoundError:
        return False
    except MEMORY_ERRORS as exc:
        outages.failed("write", "erasing a shopper's memory", exc)
        raise MemoryUnavailable(str(exc) or type(exc).__name__) from exc
    return True


# --- Views (wrapped by the admin site: staff only, CSRF-protected) -----------------------


def _page_url(shopper: Any) -> str:
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
    return HttpResponseRedirect(_page_url(shopper))


def shopper_memory_erase_view(
    request: HttpRequest, *, shopper: Any, context: dict[str, Any]
) -> HttpResponse:
    username = shopper.user.username
    if request.method != "POST":
        context.update(
            {
                "title": f"Erase {shopper.display_name}'s memory?",
                "shopper": shopper,
                "username": username,
                "memory_url": _page_url(shopper),
            }
        )
        return TemplateResponse(request, "admin/memoryapp/shopper_memory_erase.html", context)
    try:
        erased = shopper_memory_erase(username=username)
    except MemoryUnavailable as exc:
        messages.error(request, f"Agent Memory is unavailable; nothing was erased ({exc}).")
    else:
        if erased:
            messages.success(request, f"Erased everything Agent Memory kept for {username}.")
        else:
            messages.info(request, f"{username} had nothing remembered.")
    return HttpResponseRedirect(_page_url(shopper))
