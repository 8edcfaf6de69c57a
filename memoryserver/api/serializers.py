"""Input serializers (DRF) and the response shapes the SDK parses.

A block's shape is `memoryserver.payloads.block_payload`, shared with the search's fast path.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from rest_framework import serializers

from memoryserver.errors import ApiError
from memoryserver.limits import (
    MAX_BLOCKS_PER_REQUEST,
    MAX_IDS_PER_REQUEST,
    MAX_OFFSET,
    MAX_TTL_SECONDS,
    MAX_VERSION,
    integer_too_large,
    too_many,
)
from memoryserver.models import MemorySession, MemoryUser, Prompt, PromptVersion
from memoryserver.payloads import iso
from memoryserver.services.blocks import NewBlock

ANNOTATION_KEY = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


def check_id(value: str, field: str = "id") -> str:
    """Ids are any non-blank string without '/' (spec section 1)."""
    if not isinstance(value, str) or not value.strip():
        raise serializers.ValidationError(f"{field} must not be blank")
    if "/" in value:
        raise serializers.ValidationError(f"{field} must not contain '/'")
    return value


def parse_time(value: Any, field: str) -> datetime:
    """ISO 8601; a naive time is taken as UTC (Hermes sends naive times)."""
    if not isinstance(value, str):
        raise serializers.ValidationError({field: "must be an ISO 8601 string"})
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise serializers.ValidationError({field: "must be a valid ISO 8601 datetime"}) from exc
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError as exc:  # e.g. 9999-12-31T23:59-23:59 is past the last UTC date
        raise serializers.ValidationError({field: "is out of range"}) from exc


class IdField(serializers.CharField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError("must be a string")
        return check_id(data, self.field_name or "id")


class StrictStringField(serializers.CharField):
    """A string that is never coerced from numbers or booleans."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError("must be a string")
        return super().to_internal_value(data)


class AnnotationsField(serializers.DictField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=StrictStringField(allow_blank=True, trim_whitespace=False), **kwargs)

    def to_internal_value(self, data: Any) -> dict[str, str]:
        value = super().to_internal_value(data)
        bad = [k for k in value if not ANNOTATION_KEY.match(k)]
        if bad:
            raise serializers.ValidationError(
                f"annotation keys must match {ANNOTATION_KEY.pattern}: {', '.join(map(repr, bad))}"
            )
        return value


class MetadataField(serializers.JSONField):
    def to_internal_value(self, data: Any) -> Any:
        if data is not None and not isinstance(data, dict):
            raise serializers.ValidationError("must be an object")
        return data


class BoundedInt(serializers.IntegerField):
    """A whole number from `minimum` to `maximum` (see `memoryserver.limits`).

    Past the maximum is a limit (400 INVALID_REQUEST naming it), not a shape error. From a
    JSON body only a real integer is taken (never a string, float or boolean); query
    parameters arrive as text and are parsed (`from_text`).
    """

    def __init__(
        self, *, maximum: int, minimum: int = 0, from_text: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(min_value=minimum, **kwargs)
        self.maximum = maximum
        self.from_text = from_text

    def to_internal_value(self, data: Any) -> int:
        text = self.from_text and isinstance(data, str)
        if isinstance(data, bool) or not (isinstance(data, int) or text):
            raise serializers.ValidationError("must be an integer")
        value = super().to_internal_value(data)
        if value > self.maximum:
            raise integer_too_large(self.field_name or "value", self.maximum)
        return value


def ttl_field(**kwargs: Any) -> BoundedInt:
    return BoundedInt(maximum=MAX_TTL_SECONDS, **kwargs)


def version_field(**kwargs: Any) -> BoundedInt:
    return BoundedInt(maximum=MAX_VERSION, **kwargs)


def id_count_check(field: str, values: Any, maximum: int = MAX_IDS_PER_REQUEST) -> None:
    """Refuse an over-long list before validating each entry of it."""
    if isinstance(values, list) and len(values) > maximum:
        raise too_many(field, len(values), maximum)


class IdListField(serializers.ListField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=IdField(), **kwargs)

    def to_internal_value(self, data: Any) -> list[str]:
        id_count_check(self.field_name or "ids", data)
        return super().to_internal_value(data)


# --- users and sessions ----------------------------------------------------------------


class UserCreate(serializers.Serializer):
    user_id = IdField()
    name = StrictStringField()
    metadata = MetadataField(required=False, allow_null=True)


class UserUpdate(serializers.Serializer):
    name = StrictStringField(required=False)
    metadata = MetadataField(required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError("give at least one of name or metadata")
        return attrs


def metadata_filters(pairs: list[str]) -> dict[str, str]:
    """`?metadata=key=value` query parameters as a dict (a malformed one is 400)."""
    metadata: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ApiError("metadata filters look like key=value", details={"metadata": pair})
        metadata[key] = value
    return metadata


class TTLUpdate(serializers.Serializer):
    new_ttl = ttl_field()
    session_id = IdField(required=False, allow_null=True)
    block_ids = IdListField(required=False, allow_empty=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("block_ids") and not attrs.get("session_id"):
            raise serializers.ValidationError("block_ids needs session_id")
        return attrs


class SessionCreate(serializers.Serializer):
    session_id = IdField()
    annotations = AnnotationsField(required=False, allow_null=True)
    metadata = MetadataField(required=False, allow_null=True)
    memory_blocks_ttl = ttl_field(required=False, allow_null=True)


class SessionUpdate(serializers.Serializer):
    annotations = AnnotationsField(required=False, allow_null=True)
    metadata = MetadataField(required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("annotations") is None and attrs.get("metadata") is None:
            raise serializers.ValidationError("give at least one of annotations or metadata")
        return attrs


# --- memory ----------------------------------------------------------------------------


def new_block(*, fact: str | None = None, message: dict[str, str] | None = None) -> NewBlock:
    """The block a validated fact or message asks for, its text stripped."""
    if fact is not None:
        return NewBlock(fact=fact.strip())
    assert message is not None
    return NewBlock(
        user_content=message.get("user_content", "").strip(),
        assistant_content=message.get("assistant_content", "").strip(),
    )


class ChatMessageIn(serializers.Serializer):
    user_content = StrictStringField(required=False, allow_blank=True, default="")
    assistant_content = StrictStringField(required=False, allow_blank=True, default="")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # Same rule as the SDK: one side may be empty, not both (spec C11).
        if not attrs.get("user_content") and not attrs.get("assistant_content"):
            raise serializers.ValidationError(
                "at least one of user_content or assistant_content must be non-empty"
            )
        return attrs


class PromptRefMixin(serializers.Serializer):
    prompt_id = StrictStringField(required=False, allow_null=True)
    prompt_vid = version_field(required=False, allow_null=True)
    context_required = serializers.BooleanField(required=False, allow_null=True, default=None)
    async_processing = serializers.BooleanField(required=False, default=True)
    annotations = AnnotationsField(required=False, allow_null=True)
    memory_block_ttl = ttl_field(required=False, allow_null=True)

    def _check_prompt(self, attrs: dict[str, Any]) -> None:
        if attrs.get("prompt_vid") is not None and attrs.get("prompt_id") in (None, "default"):
            raise serializers.ValidationError({"prompt_vid": "needs a prompt_id"})
        if attrs.get("context_required") is False and attrs.get("prompt_id") not in (
            None,
            "default",
        ):
            raise serializers.ValidationError(
                {"context_required": "cannot be false together with prompt_id"}
            )


class MemoryAdd(PromptRefMixin):
    messages = ChatMessageIn(many=True, required=False, allow_null=True)
    facts = serializers.ListField(
        child=StrictStringField(trim_whitespace=False), required=False, allow_null=True
    )
    created_at = serializers.CharField(required=False, allow_null=True)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        # Counted before each block is validated: the cap bounds the work of one request.
        if isinstance(data, dict):
            for name in ("facts", "messages"):
                id_count_check(name, data.get(name), MAX_BLOCKS_PER_REQUEST)
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        messages, facts = attrs.get("messages"), attrs.get("facts")
        if messages and facts:
            raise serializers.ValidationError(
                "messages and facts cannot be sent together; send two requests"
            )
        if not messages and not facts:
            raise serializers.ValidationError("give a non-empty list of messages or facts")
        if facts and any(not f.strip() for f in facts):
            raise serializers.ValidationError({"facts": "facts must not be blank"})
        if attrs.get("created_at") is not None:
            attrs["created_at"] = parse_time(attrs["created_at"], "created_at")
        self._check_prompt(attrs)
        attrs["items"] = [new_block(fact=f) for f in facts or []]
        attrs["items"] += [new_block(message=m) for m in messages or []]
        return attrs


class MemoryUpdate(PromptRefMixin):
    message = ChatMessageIn(required=False, allow_null=True)
    fact = StrictStringField(required=False, allow_null=True, trim_whitespace=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("message") is not None and attrs.get("fact") is not None:
            raise serializers.ValidationError("give message or fact, not both")
        if attrs.get("fact") is not None and not attrs["fact"].strip():
            raise serializers.ValidationError({"fact": "must not be blank"})
        fields = ("message", "fact", "annotations", "memory_block_ttl", "prompt_id", "prompt_vid")
        if all(attrs.get(f) is None for f in fields):
            raise serializers.ValidationError(f"give at least one of {', '.join(fields)}")
        self._check_prompt(attrs)
        attrs["content"] = None
        if attrs.get("fact") is not None:
            attrs["content"] = new_block(fact=attrs["fact"])
        elif attrs.get("message") is not None:
            attrs["content"] = new_block(message=attrs["message"])
        return attrs


class MemoryDelete(serializers.Serializer):
    block_ids = serializers.JSONField()

    def validate_block_ids(self, value: Any) -> list[str] | None:
        if value == "all":
            return None
        if not isinstance(value, list) or not value:
            raise serializers.ValidationError('must be "all" or a non-empty list of block ids')
        id_count_check("block_ids", value)
        return [check_id(v, "block_ids") for v in value]


class SearchFilters(serializers.Serializer):
    session_ids = serializers.JSONField(required=False, allow_null=True)
    block_ids = IdListField(required=False, allow_null=True, allow_empty=False)
    start_time = serializers.CharField(required=False, allow_null=True)
    end_time = serializers.CharField(required=False, allow_null=True)
    created_start_time = serializers.CharField(required=False, allow_null=True)
    created_end_time = serializers.CharField(required=False, allow_null=True)
    relevant_k = BoundedInt(minimum=1, maximum=1000, required=False, allow_null=True)
    annotations = AnnotationsField(required=False, allow_null=True)
    annotation_filter_mode = serializers.ChoiceField(["pre", "post"], required=False, default="pre")
    order_by = serializers.ChoiceField(
        ["ingested_at", "created_at"], required=False, allow_null=True, default="ingested_at"
    )
    prompt_id = StrictStringField(required=False, allow_null=True)
    prompt_vid = version_field(required=False, allow_null=True)

    def validate_session_ids(self, value: Any) -> list[str] | str | None:
        if value is None:
            return None
        if isinstance(value, str) and value.lower() == "all":
            return "all"
        if not isinstance(value, list) or not value:
            raise serializers.ValidationError('must be "all" or a non-empty list of session ids')
        id_count_check("session_ids", value)
        ids = [check_id(v, "session_ids") for v in value]
        return "all" if len(ids) == 1 and ids[0].lower() == "all" else ids

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for name in ("start_time", "end_time", "created_start_time", "created_end_time"):
            if attrs.get(name) is not None:
                attrs[name] = parse_time(attrs[name], name)
        if attrs.get("prompt_vid") is not None and attrs.get("prompt_id") is None:
            raise serializers.ValidationError({"prompt_vid": "needs prompt_id"})
        return attrs


class MemorySearch(serializers.Serializer):
    query = StrictStringField(required=False, allow_null=True, trim_whitespace=False)
    filters = SearchFilters(required=False, allow_null=True)

    def validate_query(self, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise serializers.ValidationError("must not be blank")
        return value


def offset_field() -> BoundedInt:
    return BoundedInt(maximum=MAX_OFFSET, from_text=True, default=0)


class Paging(serializers.Serializer):
    limit = BoundedInt(minimum=1, maximum=1, from_text=True)
    offset = offset_field()

    def __init__(self, *args: Any, default_limit: int, max_limit: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["limit"] = BoundedInt(
            minimum=1, maximum=max_limit, from_text=True, default=default_limit
        )


class MemoryListQuery(serializers.Serializer):
    limit = BoundedInt(minimum=1, maximum=200, from_text=True, default=20)
    offset = offset_field()
    order_by = serializers.ChoiceField(["ingested_at", "created_at"], default="ingested_at")
    session_ids = serializers.CharField(required=False, allow_blank=True)

    def validate_session_ids(self, value: str) -> list[str] | None:
        if value.strip().lower() in ("", "all"):
            return None
        ids = [v.strip() for v in value.split(",") if v.strip()]
        id_count_check("session_ids", ids)
        return [check_id(v, "session_ids") for v in ids]


# --- prompts ---------------------------------------------------------------------------


class PromptCreate(serializers.Serializer):
    prompt_id = IdField()
    prompt = StrictStringField()
    description = StrictStringField(max_length=200, allow_blank=True)
    annotations = AnnotationsField(required=False, allow_null=True)


class PromptUpdate(serializers.Serializer):
    prompt = StrictStringField(required=False)
    description = StrictStringField(required=False, max_length=200, allow_blank=True)
    annotations = AnnotationsField(required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if all(attrs.get(f) is None for f in ("prompt", "description", "annotations")):
            raise serializers.ValidationError(
                "give at least one of prompt, description, annotations"
            )
        return attrs


def parse_vid(raw: str | None, *, allow_all: bool) -> int | None:
    """`all` → None; otherwise a non-negative integer version id."""
    if raw is None:
        raise serializers.ValidationError({"vid": "is required"})
    if allow_all and raw == "all":
        return None
    if not (raw.isascii() and raw.isdigit()):
        raise serializers.ValidationError({"vid": 'must be "all" or a non-negative integer'})
    if len(raw) > len(str(MAX_VERSION)) or int(raw) > MAX_VERSION:
        raise integer_too_large("vid", MAX_VERSION)
    return int(raw)


# --- response shapes -------------------------------------------------------------------


def user_out(user: MemoryUser, sessions: list[str] | None) -> dict[str, Any]:
    return {"id": user.user_id, "name": user.name, "sessions": sessions, "metadata": user.metadata}


def session_out(session: MemorySession, user_id: str) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "session_id": session.session_id,
        "start_time": iso(session.start_time),
        "end_time": iso(session.end_time),
        "annotations": session.annotations,
        "metadata": session.metadata,
        "blocks_ttl": session.blocks_ttl,
    }


def prompt_out(prompt: Prompt) -> dict[str, Any]:
    """A prompt as `selectors.prompt_detail` returns it (version_count, current_text)."""
    return {
        "prompt_id": prompt.prompt_id,
        "prompt": prompt.current_text,  # type: ignore[attr-defined]
        "description": prompt.description,
        "annotations": prompt.annotations,
        "current_vid": prompt.current_vid,
        "version_count": prompt.version_count,  # type: ignore[attr-defined]
        "last_updated_at": iso(prompt.last_updated_at),
        "archived": prompt.archived,
    }


def version_out(prompt: Prompt, version: PromptVersion) -> dict[str, Any]:
    return {
        "prompt_id": prompt.prompt_id,
        "vid": version.vid,
        "prompt": version.text,
        "updated_at": iso(version.updated_at),
        "archived": version.archived,
        "is_current": version.vid == prompt.current_vid,
    }
