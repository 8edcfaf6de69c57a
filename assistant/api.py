"""REST access to the assistant for API clients: the same pipeline, events as a list."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from assistant.models import RETENTION_CHOICES
from assistant.protocol.events import UNEXPECTED
from assistant.protocol.validation import (
    CATALOG_FILTERS,
    MAX_HISTORY_EXCHANGES,
    MAX_TEXT_CHARS,
    PAGE_KINDS,
    FrameError,
    turn_request_parse,
)
from assistant.turn.pipeline import turn_run

logger = logging.getLogger("assistant")


class PageSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=list(PAGE_KINDS))
    sku = serializers.CharField(required=False, help_text="kind product: the product's SKU")
    filters = serializers.DictField(
        required=False, help_text=f"kind catalog: any of {', '.join(CATALOG_FILTERS)}"
    )


class HistoryExchangeSerializer(serializers.Serializer):
    user = serializers.CharField(max_length=MAX_TEXT_CHARS, allow_blank=True)
    assistant = serializers.CharField(max_length=MAX_TEXT_CHARS, allow_blank=True)
    skus = serializers.ListField(child=serializers.CharField(), max_length=10, required=False)


class TurnRequestSerializer(serializers.Serializer):
    """The schema of a turn request; `assistant.protocol.validation` does the parsing."""

    text = serializers.CharField(max_length=MAX_TEXT_CHARS)
    session_id = serializers.CharField(allow_null=True, required=False)
    turn_count = serializers.IntegerField(min_value=0, required=False)
    session_date = serializers.DateField(allow_null=True, required=False, help_text="YYYY-MM-DD")
    retention = serializers.ChoiceField(choices=RETENTION_CHOICES, allow_null=True, required=False)
    page = PageSerializer(allow_null=True, required=False)
    history = HistoryExchangeSerializer(
        many=True,
        allow_null=True,
        required=False,
        max_length=MAX_HISTORY_EXCHANGES,
        help_text="Signed out only: the last exchanges of the conversation in progress.",
    )


# Swagger UI fills the request box with the first example, and "Try it out" sends it as it
# stands: every example must be a request the endpoint answers (a test sends each one).
TURN_EXAMPLES = [
    OpenApiExample(
        "A first question",
        summary="A new visit: only the text",
        value={"text": "Do you have a waterproof jacket under 150 EUR?"},
        request_only=True,
    ),
    OpenApiExample(
        "On a product page",
        summary="The page the shopper is on, and the visit so far",
        value={
            "text": "Do you have this in M?",
            "session_id": None,
            "turn_count": 0,
            "page": {"kind": "product", "sku": "JK-0084"},
        },
        request_only=True,
    ),
    OpenApiExample(
        "Dated, with a retention",
        summary="Signed in: date the visit and choose how long its messages are kept",
        value={
            "text": "I'm a size M and I can't stand yellow.",
            "session_date": "2026-04-12",
            "retention": "1h",
            "page": {"kind": "catalog", "filters": {"category": "jackets", "max_price": 150}},
        },
        request_only=True,
    ),
    OpenApiExample(
        "Signed out, going on",
        summary="Signed out: the conversation in progress travels with the request",
        value={
            "text": "And in black?",
            "history": [
                {
                    "user": "Show me rain jackets",
                    "assistant": "The Kestrel Rain Shell is light and fully taped.",
                    "skus": ["JK-0084"],
                }
            ],
        },
        request_only=True,
    ),
]


class TurnJSONParser(JSONParser):
    """JSON, where nesting too deep to parse is a 400 like any other malformed body."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply.") from None


async def _collect(user, request) -> list[dict]:
    return [event.to_dict() async for event in turn_run(user=user, request=request)]


class TurnsView(APIView):
    # Signed-out visitors get the stateless assistant here too, as in the panel.
    permission_classes = [AllowAny]
    parser_classes = [TurnJSONParser]

    @extend_schema(
        request=TurnRequestSerializer,
        examples=TURN_EXAMPLES,
        responses={
            200: inline_serializer(
                "TurnEvents", {"events": serializers.ListField(child=serializers.DictField())}
            )
        },
        description="Run one chat turn; returns the protocol events (docs/protocol.md) in order.",
    )
    def post(self, request):
        if not isinstance(request.data, dict):
            return Response(
                {"code": 400, "message": "Send a JSON object."}, status=status.HTTP_400_BAD_REQUEST
            )
        try:
            turn = turn_request_parse(request.data)
        except FrameError as exc:
            return Response({"code": exc.code, "message": exc.message}, status=exc.code)
        try:
            events = async_to_sync(_collect)(request.user, turn)
        except Exception:
            # A JSON answer, never a debug page, whatever went wrong.
            logger.exception("Assistant API turn failed")
            return Response(
                {"code": UNEXPECTED.code, "message": UNEXPECTED.message},
                status=status.HTTP_500_INTERNAL_SERVER_ERROR,
            )
        return Response({"events": events})
