"""The one factory for model clients: every LLM call in Aisle gets its client here.

With `OPENAI_API_KEY` set the client talks to OpenAI (or `OPENAI_BASE_URL`). Without one
it talks to the built-in offline model through an in-process ASGI transport that streams,
so callers run the same `openai` SDK code path (streaming, tool calls, JSON mode, errors,
closing a stream early) either way.
"""

from __future__ import annotations

import asyncio
import weakref

import httpx
import openai
from django.conf import settings

from llm.asgi_stream import StreamingASGITransport

OFFLINE_MODEL = "aisle-offline"
OFFLINE_BASE_URL = "http://aisle-offline/v1"
# The offline model needs no key, but the SDK refuses to build a client without one.
OFFLINE_API_KEY = "offline"
# One quick retry rides out a dropped connection; more would stretch a failed turn far
# past MODEL_TIMEOUT_SECONDS before the shopper sees the error.
OPENAI_MAX_RETRIES = 1
# The offline model's pause after each streamed word, when the settings name none (the
# memory server's process, for one, has no such setting).
OFFLINE_STREAM_DELAY_MS = 4.0

_ROLE_SETTINGS = {
    "assistant": "ASSISTANT_MODEL",
    "judge": "JUDGE_MODEL",
    "extraction": "EXTRACTION_MODEL",
    "episode": "EPISODE_MODEL",
}

# An httpx AsyncClient's connection pool belongs to the event loop that opened it, so a
# client is cached per running loop (daphne runs one; each async test gets its own) and
# per configuration (tests override settings). The weak keys let a closed loop's clients go.
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, openai.AsyncOpenAI]]
_clients = weakref.WeakKeyDictionary()


def model_mode() -> str:
    """Return "openai" when an API key is configured, else "offline"."""
    return "openai" if settings.OPENAI_API_KEY else "offline"


def model_for(role: str) -> str:
    """Name the model to send for `role` ("assistant", "judge", "extraction", "episode")."""
    if role not in _ROLE_SETTINGS:
        raise ValueError(f"unknown model role {role!r}; expected one of {sorted(_ROLE_SETTINGS)}")
    if model_mode() == "offline":
        return OFFLINE_MODEL
    name = getattr(settings, _ROLE_SETTINGS[role], None)
    # EPISODE_MODEL is optional: episodes are judge-sized work.
    return name or settings.JUDGE_MODEL


def chat_client() -> openai.AsyncOpenAI:
    """Return the chat client for the current settings, cached per running event loop.

    Outside a running loop a fresh client is built each call (cheap; nothing to share).
    """
    config = _client_config()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _client_build(config)
    per_loop = _clients.setdefault(loop, {})
    client = per_loop.get(config)
    if client is None:
        client = per_loop[config] = _client_build(config)
    return client


def _client_config() -> tuple:
    return (
        settings.OPENAI_API_KEY or None,
        settings.OPENAI_BASE_URL or None,
        float(settings.MODEL_TIMEOUT_SECONDS),
        float(getattr(settings, "OFFLINE_MODEL_STREAM_DELAY_MS", OFFLINE_STREAM_DELAY_MS)),
    )


def _client_build(config: tuple) -> openai.AsyncOpenAI:
    api_key, base_url, timeout, stream_delay_ms = config
    if api_key:
        return openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=OPENAI_MAX_RETRIES,
        )
    return offline_client(timeout=timeout, stream_delay_ms=stream_delay_ms)


def offline_client(*, timeout: float = 60.0, stream_delay_ms: float = 0.0) -> openai.AsyncOpenAI:
    """Build a client wired to the offline model in this process (no network, no key).

    Its answers stream: each chunk reaches the caller as the model sends it, with
    `stream_delay_ms` between chunks.
    """
    # Imported here so a deployment with a key never loads the rule-based model.
    from llm.offline import OfflineModel

    http_client = httpx.AsyncClient(
        transport=StreamingASGITransport(OfflineModel(stream_delay_ms=stream_delay_ms)),
        base_url=OFFLINE_BASE_URL,
        timeout=timeout,
    )
    # Retrying a deterministic in-process model only repeats the same answer.
    return openai.AsyncOpenAI(
        api_key=OFFLINE_API_KEY,
        base_url=OFFLINE_BASE_URL,
        timeout=timeout,
        max_retries=0,
        http_client=http_client,
    )
