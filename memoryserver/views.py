"""HTTP layer of the embedded Agent Memory server: parse, call one service, shape the answer."""

from __future__ import annotations

import logging
import os
import resource
import time
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions as drf_exceptions
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from memoryserver import selectors
from memoryserver import serializers as s
from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.embedders import get_embedder
from memoryserver.errors import ApiError, envelope
from memoryserver.extractors import get_extractor
from memoryserver.payloads import block_payload, iso
from memoryserver.queue import get_queue
from memoryserver.services.blocks import NewBlock, block_update, blocks_add, blocks_delete
from memoryserver.services.prompts import prompt_archive, prompt_create, prompt_purge, prompt_update
from memoryserver.services.sessions import (
    session_create,
    session_delete,
    session_end,
    session_update,
)
from memoryserver.services.ttl import ttl_modify
from memoryserver.services.users import user_create, user_delete, user_update
from memoryserver.worker import worker_alive

logger = logging.getLogger(__name__)
VERSION = "1.1.0"
STARTED = time.monotonic()


def _drf_details(detail: Any) -> dict[str, Any]:
    if isinstance(detail, dict):
        return {k: _plain(v) for k, v in detail.items()}
    return {"errors": _plain(detail)}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value)


def _first_message(details: Any) -> str:
    if isinstance(details, dict):
        for key, value in details.items():
            inner = _first_message(value)
            return inner if key in ("errors", "non_field_errors") else f"{key}: {inner}"
    if isinstance(details, list) and details:
        return _first_message(details[0])
    return str(details)


def handle_exception(exc: Exception, context: dict[str, Any]) -> JsonResponse:
    """Turn every failure into the spec's envelope; DRF's own shapes never leak out."""
    if isinstance(exc, ApiError):
        return envelope(exc.status, exc.code, exc.message, exc.details, exc.headers)
    if isinstance(exc, drf_exceptions.ValidationError):
        details = _drf_details(exc.detail)
        return envelope(422, "VALIDATION_ERROR", _first_message(details), details)
    if isinstance(exc, drf_exceptions.ParseError):
        return envelope(400, "INVALID_REQUEST", f"request body is not valid JSON: {exc.detail}")
    if isinstance(exc, drf_exceptions.MethodNotAllowed):
        return envelope(405, "METHOD_NOT_ALLOWED", str(exc.detail))
    if isinstance(exc, Http404 | drf_exceptions.NotFound):
        return envelope(404, "NOT_FOUND", "not found")
    if isinstance(exc, drf_exceptions.APIException):
        code = str(exc.default_code).upper()
        return envelope(exc.status_code, code, str(exc.detail))
    logger.exception("unhandled error in the Agent Memory server")
    return envelope(500, "INTERNAL_ERROR", "internal server error")


class ApiView(APIView):
    """No sessions, no CSRF, no DRF auth: the bearer check is in the middleware."""

    authentication_classes: list = []
    permission_classes: list = []
    renderer_classes = [JSONRenderer]
    parser_classes = [JSONParser]

    def get_exception_handler(self):  # type: ignore[override]
        return handle_exception

    def perform_content_negotiation(self, request: Request, force: bool = False):  # type: ignore[override]
        # The SDK always wants JSON; skipping negotiation also saves a little per request.
        renderer = self.renderer_classes[0]()
        return renderer, renderer.media_type


def validated(serializer: type[Serializer], data: Any, **kwargs: Any) -> dict[str, Any]:
    instance = serializer(data=data if data is not None else {}, **kwargs)
    instance.is_valid(raise_exception=True)
    return dict(instance.validated_data)


def path_ids(**ids: str) -> None:
    for name, value in ids.items():
        if not value.strip():
            raise ApiError(f"{name} must not be blank", details={name: value})


def query_params(request: Request) -> dict[str, Any]:
    return {k: request.query_params.get(k) for k in request.query_params}


# --- users -----------------------------------------------------------------------------


class UsersView(ApiView):
    def post(self, request: Request) -> Response:
        data = validated(s.UserCreate, request.data)
        user = user_create(
            user_id=data["user_id"], name=data["name"], metadata=data.get("metadata")
        )
        return Response(s.user_out(user, []), status=201)

    def get(self, request: Request) -> Response:
        paging = validated(s.Paging, query_params(request), default_limit=50, max_limit=500)
        metadata: dict[str, str] = {}
        for pair in request.query_params.getlist("metadata"):
            key, sep, value = pair.partition("=")
            if not sep or not key:
                raise ApiError("metadata filters look like key=value", details={"metadata": pair})
            metadata[key] = value
        users, total = selectors.users_list(
            name=request.query_params.get("name"), metadata=metadata, **paging
        )
        items = [s.user_out(user, session_ids) for user, session_ids in users]
        return Response({"users": items, "count": len(items), "total": total, **paging})


class UserView(ApiView):
    def get(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        user, session_ids = selectors.user_detail(user_id=user_id)
        return Response(s.user_out(user, session_ids))

    def put(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.UserUpdate, request.data)
        user = user_update(
            user_id=user_id,
            name=data.get("name"),
            metadata=data.get("metadata"),
            set_metadata="metadata" in data,
        )
        return Response(s.user_out(user, selectors.user_session_ids(user)))

    def delete(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        user_delete(user_id=user_id)
        return Response(status=204)


class UserTTLView(ApiView):
    def put(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.TTLUpdate, request.data)
        changed = ttl_modify(
            user_id=user_id,
            new_ttl=data["new_ttl"],
            session_id=data.get("session_id"),
            block_ids=data.get("block_ids"),
        )
        return Response({"message": f"TTL set to {data['new_ttl']}s", "updated_count": changed})


class UserMemoryView(ApiView):
    def get(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.MemoryListQuery, query_params(request))
        blocks, total = selectors.blocks_list(
            user_id=user_id,
            session_ids=data.get("session_ids"),
            order_by=data["order_by"],
            limit=data["limit"],
            offset=data["offset"],
        )
        return Response(
            {
                "memory_blocks": [block_payload(b) for b in blocks],
                "count": len(blocks),
                "total": total,
                "limit": data["limit"],
                "offset": data["offset"],
            }
        )


# --- sessions --------------------------------------------------------------------------


class SessionsView(ApiView):
    def post(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.SessionCreate, request.data)
        session = session_create(
            user_id=user_id,
            session_id=data["session_id"],
            annotations=data.get("annotations"),
            metadata=data.get("metadata"),
            blocks_ttl=data.get("memory_blocks_ttl"),
        )
        return Response(s.session_out(session, user_id), status=201)

    def get(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        paging = validated(s.Paging, query_params(request), default_limit=50, max_limit=500)
        sessions, total = selectors.sessions_list(user_id=user_id, **paging)
        items = [s.session_out(x, user_id) for x in sessions]
        return Response({"sessions": items, "count": len(items), "total": total, **paging})


class SessionView(ApiView):
    def get(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        session = selectors.session_get(user_id=user_id, session_id=session_id)
        return Response(s.session_out(session, user_id))

    def put(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.SessionUpdate, request.data)
        session = session_update(
            user_id=user_id,
            session_id=session_id,
            annotations=data.get("annotations"),
            metadata=data.get("metadata"),
        )
        return Response(s.session_out(session, user_id))

    def delete(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        session_delete(user_id=user_id, session_id=session_id)
        return Response(status=204)


class SessionEndView(ApiView):
    def post(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        session = session_end(user_id=user_id, session_id=session_id)
        return Response(s.session_out(session, user_id))


# --- memory ----------------------------------------------------------------------------


def _new_block(fact: str | None = None, message: dict[str, str] | None = None) -> NewBlock:
    if fact is not None:
        return NewBlock(fact=fact.strip())
    assert message is not None
    return NewBlock(
        user_content=message.get("user_content", "").strip(),
        assistant_content=message.get("assistant_content", "").strip(),
    )


class MemoryView(ApiView):
    def post(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.MemoryAdd, request.data)
        items = [_new_block(fact=f) for f in data.get("facts") or []]
        items += [_new_block(message=m) for m in data.get("messages") or []]
        result = blocks_add(
            user_id=user_id,
            session_id=session_id,
            items=items,
            annotations=data.get("annotations"),
            block_ttl=data.get("memory_block_ttl"),
            context_required=data.get("context_required"),
            created_at=data.get("created_at"),
            async_processing=data["async_processing"],
            prompt_id=data.get("prompt_id"),
            prompt_vid=data.get("prompt_vid"),
        )
        accepted = len(result.block_ids)
        return Response(
            {
                "message": f"accepted {accepted} memory block(s)",
                "accepted_count": accepted,
                "block_ids": result.block_ids,
                "rejected_count": len(result.rejected),
                "rejected_details": result.rejected or None,
            },
            status=201,
        )

    def delete(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.MemoryDelete, request.data)
        deleted = blocks_delete(user_id=user_id, session_id=session_id, block_ids=data["block_ids"])
        return Response({"deleted_count": deleted, "failed_count": 0, "failed_block_ids": []})


class MemoryBlockView(ApiView):
    def put(self, request: Request, user_id: str, session_id: str, block_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id, block_id=block_id)
        data = validated(s.MemoryUpdate, request.data)
        content = None
        if data.get("fact") is not None:
            content = _new_block(fact=data["fact"])
        elif data.get("message") is not None:
            content = _new_block(message=data["message"])
        block = block_update(
            user_id=user_id,
            session_id=session_id,
            block_id=block_id,
            content=content,
            annotations=data.get("annotations"),
            block_ttl=data.get("memory_block_ttl"),
            async_processing=data["async_processing"],
            context_required=data.get("context_required"),
            prompt_id=data.get("prompt_id"),
            prompt_vid=data.get("prompt_vid"),
        )
        return Response({"message": "memory block updated", "block": block_payload(block)})


class MemorySearchView(ApiView):
    def post(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.MemorySearch, request.data)
        found = selectors.blocks_search(
            user_id=user_id,
            session_id=session_id,
            query=data.get("query"),
            filters=data.get("filters") or {},
        )
        return Response({"memory_blocks": found, "count": len(found)})


# --- prompts ---------------------------------------------------------------------------


class PromptsView(ApiView):
    def post(self, request: Request) -> Response:
        data = validated(s.PromptCreate, request.data)
        prompt_create(
            prompt_id=data["prompt_id"],
            text=data["prompt"],
            description=data["description"],
            annotations=data.get("annotations"),
        )
        return Response(
            s.prompt_out(selectors.prompt_detail(prompt_id=data["prompt_id"])), status=201
        )

    def get(self, request: Request) -> Response:
        paging = validated(s.Paging, query_params(request), default_limit=100, max_limit=1000)
        prompts, total = selectors.prompts_list(**paging)
        items = [s.prompt_out(p) for p in prompts]
        return Response({"prompts": items, "count": len(items), "total": total, **paging})


class PromptView(ApiView):
    def get(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        vid = request.query_params.get("vid")
        if vid is None:
            return Response(s.prompt_out(selectors.prompt_detail(prompt_id=prompt_id)))
        prompt = selectors.prompt_get(prompt_id=prompt_id)
        version = selectors.prompt_version_get(prompt=prompt, vid=s.parse_vid(vid, allow_all=False))  # type: ignore[arg-type]
        return Response(s.version_out(prompt, version))

    def put(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        data = validated(s.PromptUpdate, request.data)
        prompt_update(
            prompt_id=prompt_id,
            text=data.get("prompt"),
            description=data.get("description"),
            annotations=data.get("annotations"),
        )
        return Response(s.prompt_out(selectors.prompt_detail(prompt_id=prompt_id)))

    def delete(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        vid = s.parse_vid(request.query_params.get("vid"), allow_all=True)
        prompt_purge(prompt_id=prompt_id, vid=vid)
        return Response(status=204)


class PromptArchiveView(ApiView):
    def put(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        vid = s.parse_vid(request.query_params.get("vid"), allow_all=True)
        prompt_archive(prompt_id=prompt_id, vid=vid)
        return Response(status=204)


class PromptVersionsView(ApiView):
    def get(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        paging = validated(s.Paging, query_params(request), default_limit=100, max_limit=1000)
        prompt, versions, total = selectors.prompt_versions_list(prompt_id=prompt_id, **paging)
        items = [s.version_out(prompt, v) for v in versions]
        return Response({"versions": items, "count": len(items), "total": total, **paging})


# --- health ----------------------------------------------------------------------------


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


def route_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    return envelope(404, "NOT_FOUND", f"no route for {request.method} {request.path}")


def _plain_response(response: Any) -> HttpResponse:
    """Render a DRF response in the worker thread and hand Django a plain HttpResponse.

    Left as a TemplateResponse, Django would hop back to its single sync thread to render.
    """
    if not hasattr(response, "render"):
        return response
    response.render()
    plain = HttpResponse(response.content, status=response.status_code)
    for name, value in response.items():
        plain[name] = value
    return plain


def in_thread_pool(view: Any) -> Any:
    """Run a sync DRF view on the shared thread pool, not Django's single sync thread.

    Django would run every sync view on one thread; a slow extraction with
    async_processing=false would then stall every search behind it.
    """

    def run(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return _plain_response(view(request, *args, **kwargs))

    runner = sync_to_async(run, thread_sensitive=False)

    async def view_async(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return await runner(request, *args, **kwargs)

    # asgi.DirectDispatch calls the sync view straight from its own thread pool.
    view_async.sync_view = run  # type: ignore[attr-defined]
    return view_async
