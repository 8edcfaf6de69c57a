"""The built-in offline model: a deterministic, rule-based chat-completions endpoint.

`offline_app` is a plain ASGI application serving `POST /v1/chat/completions` (JSON and
SSE streaming, tool calls, JSON mode) and `GET /v1/models`. The factory mounts it behind
`httpx.ASGITransport` when no API key is configured.
"""

from __future__ import annotations

from llm.offline.app import offline_app

__all__ = ["offline_app"]
