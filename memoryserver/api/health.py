"""Health routes, answered as the SDK's health client expects."""

from __future__ import annotations

import os
import resource
import time
from typing import Any

from django.conf import settings
from django.db import connections
from rest_framework.request import Request
from rest_framework.response import Response

from memoryserver.api.base import ApiView
from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.embedders import get_embedder
from memoryserver.extractors import get_extractor
from memoryserver.payloads import iso
from memoryserver.queue import get_queue
from memoryserver.worker import worker_alive

VERSION = "1.1.0"


STARTED = time.monotonic()


class HealthView(ApiView):
    def get(self, request: Request) -> Response:
        return Response(
            {
                "status": "healthy",
                "version": VERSION,
                "uptime_seconds": round(time.monotonic() - STARTED, 3),
            }
        )


class DatabaseHealthView(ApiView):
    def get(self, request: Request) -> Response:
        try:
            with connections[db_alias()].cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception as exc:  # reported in the body: this route exists to say so
            return Response(
                {"status": "unhealthy", "message": f"database error: {exc}", "backend": "sqlite"}
            )
        name = str(settings.DATABASES[db_alias()]["NAME"])
        return Response(
            {"status": "healthy", "backend": "sqlite", "database": os.path.basename(name)}
        )


class ModelsHealthView(ApiView):
    def get(self, request: Request) -> Response:
        embedder = get_embedder()
        return Response(
            {
                "status": "healthy",
                "embedding": {"status": "healthy", "model": embedder.name},
                "llm": {"status": "healthy", "model": get_extractor().name},
            }
        )


def _batch_payload() -> dict[str, Any]:
    snap = get_queue().snapshot()
    stats = snap["stats"]
    alive = worker_alive()
    limit = settings.AGENT_MEMORY_PER_REQUEST_TOKEN_LIMIT
    return {
        "status": "healthy" if alive else "unhealthy",
        "message": "extraction worker running" if alive else "extraction worker stopped",
        "queue": {
            "size": snap["size"],
            "queued_ids": snap["queued_ids"],
            "processing": snap["processing"],
            "max_size": snap["max_size"],
        },
        # The embedded server has no upstream rate limit; the budget is reported as unlimited.
        "rate_budget": {
            "available_requests": 1e9,
            "available_tokens": 1e12,
            "max_requests_per_minute": 1e9,
            "max_tokens_per_minute": 1e12,
            "per_request_token_limit": limit,
        },
        "statistics": {
            **stats,
            "active_tasks": snap["processing"],
            "loop_running": alive,
            "dispatcher_alive": alive,
        },
        "loop_running": alive,
        "dispatcher_alive": alive,
    }


class BatchHealthView(ApiView):
    def get(self, request: Request) -> Response:
        return Response(_batch_payload())


class MemoryHealthView(ApiView):
    def get(self, request: Request) -> Response:
        rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        total_kb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024
        usage = round(100.0 * rss_kb / total_kb, 2) if total_kb else 0.0
        return Response(
            {
                "status": "healthy",
                "message": "memory monitor: process peak RSS against physical memory",
                "accepting_requests": True,
                "usage_percent": usage,
                "threshold_percent": 90.0,
                "last_check": iso(clock.now()),
            }
        )
