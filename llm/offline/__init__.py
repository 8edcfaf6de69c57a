"""The built-in offline model: a deterministic, rule-based chat-completions endpoint.

`OfflineModel` is a plain ASGI application serving `POST /v1/chat/completions` (JSON and
SSE streaming, tool calls, JSON mode) and `GET /v1/models`; `offline_app` is one that
streams without pausing. The factory mounts it behind a streaming in-process transport
when no API key is configured.
"""

from __future__ import annotations

from llm.offline.app import OfflineModel, offline_app

__all__ = ["OfflineModel", "offline_app"]
