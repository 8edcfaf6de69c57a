"""Watch or break a session's in-session search (the one filtered by its session id).

Memory searches the session in progress apart from the shopper's other sessions; tests
that check what happens when only that search fails, or whether it ran at all, wrap the
SDK resource's search here instead of each writing its own wrapper.
"""

from __future__ import annotations

from typing import Any


def in_session_search_watch(monkeypatch: Any, memory: Any, *, fail: bool = False) -> list:
    """Wrap the session's search: the queries of its in-session searches are listed in the
    returned list, and with `fail` each raises a reset connection (other searches run)."""
    queries: list[str | None] = []
    real_search = memory.resource.search_memory

    async def searching(query=None, filters=None):
        if "session_ids" not in (filters or {}):
            queries.append(query)
            if fail:
                raise OSError("connection reset")
        return await real_search(query=query, filters=filters)

    monkeypatch.setattr(memory.resource, "search_memory", searching)
    return queries
