"""REST endpoints for the inspector: the signed-in shopper's own memory records."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoryapp.accounts import account_memory_user_id
from memoryapp.blocks import KINDS
from memoryapp.erasure import record_delete
from memoryapp.records import RecordNotFound
from memoryapp.selectors import MAX_LIST_OFFSET, MAX_RECORDS_LIMIT, records_list
from memoryapp.types import MemoryRefused, MemoryUnavailable

UNAVAILABLE = {"detail": "Memory is unavailable right now."}


class RecordsQuery(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_RECORDS_LIMIT, default=20)
    # Refused here, before memory is called, rather than passed on to be refused there.
    offset = serializers.IntegerField(min_value=0, max_value=MAX_LIST_OFFSET, default=0)


class RecordSerializer(serializers.Serializer):
    block_id = serializers.CharField()
    session_id = serializers.CharField()
    kind = serializers.ChoiceField(choices=list(KINDS))
    text = serializers.CharField()
    created_at = serializers.CharField(allow_null=True)
    ingested_at = serializers.CharField()
    expires_at = serializers.CharField(
        allow_null=True,
        help_text="When the server drops the record (ISO 8601, derived from its session's "
        "retention and its write time); null when it is kept.",
    )
    status = serializers.CharField()
    category = serializers.CharField(allow_null=True, help_text="facts: size, budget, colour, ...")
    slot = serializers.CharField(allow_null=True, help_text="facts: e.g. size/shoes, colour/yellow")
    superseded = serializers.BooleanField(
        help_text="a fact replaced by a newer one of its slot: history, never recalled"
    )


class RecordPageSerializer(serializers.Serializer):
    records = RecordSerializer(many=True)
    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()


class RecordListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "limit",
                int,
                description=f"1-{MAX_RECORDS_LIMIT}, default 20",
                examples=[OpenApiExample("A page of ten", value=10)],
            ),
            OpenApiParameter(
                "offset",
                int,
                description=f"0-{MAX_LIST_OFFSET}, default 0",
                examples=[OpenApiExample("The second page of ten", value=10)],
            ),
        ],
        responses={200: RecordPageSerializer},
    )
    def get(self, request: Request) -> Response:
        """List the signed-in shopper's memory records, newest first."""
        query = RecordsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            page = records_list(
                user_id=account_memory_user_id(account=request.user), **query.validated_data
            )
        except MemoryRefused as exc:
            return Response({"detail": f"Memory refused the request: {exc}"}, status=400)
        except MemoryUnavailable:
            return Response(UNAVAILABLE, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(
            {
                "records": [record.as_dict() for record in page.records],
                "total": page.total,
                "limit": page.limit,
                "offset": page.offset,
            }
        )


class RecordDeleteView(APIView):
    # A foreign origin never gets here: config.origins checks every write's origin.
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: dict})
    def post(self, request: Request, block_id: str) -> Response:
        """Delete one of the signed-in shopper's own records; their open panels are told."""
        try:
            deleted = record_delete(account=request.user, block_id=block_id)
        except RecordNotFound:
            return Response({"detail": "No such record."}, status=status.HTTP_404_NOT_FOUND)
        except MemoryUnavailable:
            return Response(UNAVAILABLE, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response({"deleted": deleted})
