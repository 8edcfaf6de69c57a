"""What every view shares: the DRF base view, input parsing helpers, the thread-pool runner."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from memoryserver.api.errors import handle_exception
from memoryserver.errors import ApiError
from memoryserver.limits import json_depth_check, json_too_deep


class BoundedJSONParser(JSONParser):
    """JSON bodies nested deeper than `limits.MAX_JSON_DEPTH` are 400, never a 500.

    The standard parser gives up on deep nesting with a RecursionError, which is no
    ValueError and so escaped as a 500; anything shallower than Python's recursion limit
    but past ours is refused after parsing.
    """

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise json_too_deep() from None
        json_depth_check(data)
        return data


class ApiView(APIView):
    """No sessions, no CSRF, no DRF auth: the bearer check is in the middleware."""

    authentication_classes: list = []
    permission_classes: list = []
    renderer_classes = [JSONRenderer]
    parser_classes = [BoundedJSONParser]

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


def in_thread_pool(view: Any, *, embeds: frozenset[str] = frozenset()) -> Any:
    """Run a sync DRF view on the server's thread pools, not Django's single sync thread.

    Django would run every sync view on one thread; a slow extraction with
    async_processing=false would then stall every search behind it. `embeds` names the
    methods that embed text (block adds and updates): `asgi.DirectDispatch` runs those on
    the writes' own pool, the rest on the reads'.
    """

    def run(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return _plain_response(view(request, *args, **kwargs))

    runner = sync_to_async(run, thread_sensitive=False)

    async def view_async(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return await runner(request, *args, **kwargs)

    # asgi.DirectDispatch calls the sync view straight from its own thread pool.
    view_async.sync_view = run  # type: ignore[attr-defined]
    view_async.embedding_methods = embeds  # type: ignore[attr-defined]
    return view_async
