"""REST access to the assistant for API clients: the same pipeline, events as a list."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from assistant.services import turn_run
from assistant.validation import FrameError, turn_request_parse
from memoryapp.conf import RETENTION_CHOICES


class TurnRequestSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=4000)
    session_id = serializers.CharField(allow_null=True, required=False)
    turn_count = serializers.IntegerField(min_value=0, required=False)
    session_date = serializers.CharField(allow_null=True, required=False, help_text="YYYY-MM-DD")
    retention = serializers.ChoiceField(choices=RETENTION_CHOICES, allow_null=True, required=False)


async def _collect(user, request) -> list[dict]:
    return [event async for event in turn_run(user=user, request=request)]


class TurnsView(APIView):
    # Signed-out visitors get the stateless assistant here too, as in the panel.
    permission_classes = [AllowAny]

    @extend_schema(
        request=TurnRequestSerializer,
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
            turn = turn_request_parse(dict(request.data))
        except FrameError as exc:
            return Response({"code": exc.code, "message": exc.message}, status=exc.code)
        events = async_to_sync(_collect)(request.user, turn)
        return Response({"events": events})
