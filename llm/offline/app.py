"""The ASGI endpoint: routing, request validation the way the real API does it, dispatch."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from llm.offline import roles
from llm.offline.wire import (
    completion_body,
    completion_chunks,
    error_body,
    request_fingerprint,
    sse_event,
    usage_estimate,
)
from llm.prompts import content_text

MODEL_NAME = "aisle-offline"
# A fixed date keeps /v1/models byte-for-byte stable.
MODEL_CREATED = 1767225600
_MESSAGE_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_TOOL_CHOICES = ("none", "auto", "required")
_RESPONSE_FORMATS = ("text", "json_object", "json_schema")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


class RequestRejected(Exception):
    """A request the real API would refuse, with the status and error body it would send."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = error_body(message, param=param, code=code)


class OfflineModel:
    """The ASGI app serving the chat-completions and models routes of the OpenAI API.

    `stream_delay_ms` is the pause after each streamed chunk. The rule-based model has its
    whole answer at once; the pause gives a streamed answer the pace of a real model, so
    the panel's streaming and its Stop button can be seen and tried without a key.
    """

    def __init__(self, *, stream_delay_ms: float = 0.0) -> None:
        if stream_delay_ms < 0:
            raise ValueError("stream_delay_ms must be 0 or more")
        self.stream_delay = stream_delay_ms / 1000

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        await _http(scope, receive, send, stream_delay=self.stream_delay)


# No pause: for callers that only want the answers (tests, the memory server's extractor).
offline_app = OfflineModel()


async def _http(scope: Scope, receive: Receive, send: Send, *, stream_delay: float) -> None:
    body = await _body_read(receive)
    method = scope["method"]
    path = scope["path"].rstrip("/")
    try:
        if path == "/v1/chat/completions":
            _method_require(method, "POST", path)
            await _chat_completions(body, send, stream_delay=stream_delay)
        elif path == "/v1/models":
            _method_require(method, "GET", path)
            await _json_send(send, 200, {"object": "list", "data": [_model_card()]})
        elif path.startswith("/v1/models/"):
            _method_require(method, "GET", path)
            await _json_send(send, 200, _model_card_for(path.removeprefix("/v1/models/")))
        else:
            raise RequestRejected(404, f"Invalid URL ({method} {path})")
    except RequestRejected as rejected:
        await _json_send(send, rejected.status, rejected.body)


async def _chat_completions(body: bytes, send: Send, *, stream_delay: float) -> None:
    request = request_parse(body)
    fingerprint = request_fingerprint(body)
    reply = roles.reply_for(request)
    usage = usage_estimate(_prompt_text(request["messages"]), reply)
    if not request.get("stream"):
        await _json_send(
            send,
            200,
            completion_body(reply, model=MODEL_NAME, fingerprint=fingerprint, usage=usage),
        )
        return
    include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-cache"),
            ],
        }
    )
    chunks = completion_chunks(
        reply, model=MODEL_NAME, fingerprint=fingerprint, usage=usage if include_usage else None
    )
    for index, chunk in enumerate(chunks):
        await send({"type": "http.response.body", "body": sse_event(chunk), "more_body": True})
        if stream_delay and index:
            await asyncio.sleep(stream_delay)
    await send({"type": "http.response.body", "body": sse_event("[DONE]"), "more_body": False})


def request_parse(body: bytes) -> dict:
    """Parse and validate a chat-completions body; raise RequestRejected as the API would."""
    try:
        request = json.loads(body or b"")
    except (ValueError, UnicodeDecodeError):
        request = None
    if not isinstance(request, dict):
        raise RequestRejected(
            400,
            "We could not parse the JSON body of your request. The OpenAI API expects a "
            "JSON payload, but what was sent was not valid JSON.",
        )
    model = request.get("model")
    if model is None:
        raise RequestRejected(400, "you must provide a model parameter")
    if not isinstance(model, str):
        raise _invalid_type("model", "a string", model)
    _messages_validate(request.get("messages"))
    _tools_validate(request)
    _response_format_validate(request)
    if "stream" in request and not isinstance(request["stream"], bool | None):
        raise _invalid_type("stream", "a boolean", request["stream"])
    if model != MODEL_NAME:
        raise RequestRejected(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            code="model_not_found",
        )
    return request


def _messages_validate(messages: object) -> None:
    if messages is None:
        raise RequestRejected(
            400,
            "Missing required parameter: 'messages'.",
            param="messages",
            code="missing_required_parameter",
        )
    if not isinstance(messages, list):
        raise _invalid_type("messages", "an array of objects", messages)
    if not messages:
        raise RequestRejected(
            400,
            "Invalid 'messages': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            param="messages",
            code="empty_array",
        )
    pending: dict[str, int] = {}
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise _invalid_type(where, "an object", message)
        role = message.get("role")
        if role not in _MESSAGE_ROLES:
            raise RequestRejected(
                400,
                f"Invalid value: {role!r}. Supported values are: 'system', 'assistant', "
                "'user', 'function', 'tool', and 'developer'.",
                param=f"{where}.role",
                code="invalid_value",
            )
        content = message.get("content")
        if not isinstance(content, str | list | None):
            raise _invalid_type(f"{where}.content", "a string or an array", content)
        if content is None and not (role == "assistant" and message.get("tool_calls")):
            raise _invalid_type(f"{where}.content", "a string or an array", content)
        if role != "tool" and pending:
            _unanswered_raise(pending)
        if role == "assistant":
            pending = _tool_calls_validate(message.get("tool_calls"), where)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                raise RequestRejected(
                    400,
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    param=f"{where}.role",
                )
            del pending[call_id]
    if pending:
        _unanswered_raise(pending)


def _tool_calls_validate(tool_calls: object, where: str) -> dict[str, int]:
    if tool_calls is None:
        return {}
    if not isinstance(tool_calls, list):
        raise _invalid_type(f"{where}.tool_calls", "an array", tool_calls)
    pending = {}
    for index, call in enumerate(tool_calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(call.get("id"), str):
            raise _invalid_type(f"{where}.tool_calls[{index}]", "a function tool call", call)
        pending[call["id"]] = index
    return pending


def _unanswered_raise(pending: dict[str, int]) -> None:
    raise RequestRejected(
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(pending),
        param="messages",
    )


def _tools_validate(request: dict) -> None:
    tools = request.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _invalid_type("tools", "an array", tools)
        for index, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, dict) else None
            if (
                not isinstance(function, dict)
                or tool.get("type") != "function"
                or not isinstance(function.get("name"), str)
            ):
                raise RequestRejected(
                    400,
                    f"Missing required parameter: 'tools[{index}].function.name'.",
                    param=f"tools[{index}].function.name",
                    code="missing_required_parameter",
                )
    choice = request.get("tool_choice")
    if choice is None:
        return
    if not tools:
        raise RequestRejected(
            400,
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified.",
            param="tool_choice",
        )
    if isinstance(choice, str):
        if choice not in _TOOL_CHOICES:
            raise RequestRejected(
                400,
                f"Invalid value: {choice!r}. Supported values are: 'none', 'auto', and 'required'.",
                param="tool_choice",
                code="invalid_value",
            )
        return
    name = ((choice or {}).get("function") or {}).get("name") if isinstance(choice, dict) else None
    if name not in {tool["function"]["name"] for tool in tools}:
        raise RequestRejected(
            400,
            f"Invalid value for 'tool_choice': no function named {name!r} was specified in "
            "the 'tools' parameter.",
            param="tool_choice",
            code="invalid_value",
        )


def _response_format_validate(request: dict) -> None:
    response_format = request.get("response_format")
    if response_format is None:
        return
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in _RESPONSE_FORMATS:
        raise RequestRejected(
            400,
            f"Invalid value: {kind!r}. Supported values are: 'text', 'json_object', and "
            "'json_schema'.",
            param="response_format.type",
            code="invalid_value",
        )
    if kind == "json_object" and "json" not in _prompt_text(request["messages"]).lower():
        raise RequestRejected(
            400,
            "'messages' must contain the word 'json' in some form, to use 'response_format' "
            "of type 'json_object'.",
            param="messages",
        )


def _invalid_type(param: str, expected: str, value: object) -> RequestRejected:
    got = {str: "a string", list: "an array", dict: "an object", bool: "a boolean"}.get(
        type(value), "null" if value is None else "a number"
    )
    return RequestRejected(
        400,
        f"Invalid type for '{param}': expected {expected}, but got {got} instead.",
        param=param,
        code="invalid_type",
    )


def _prompt_text(messages: list[dict]) -> str:
    return "\n".join(content_text(message.get("content")) for message in messages)


def _method_require(method: str, expected: str, path: str) -> None:
    if method != expected:
        raise RequestRejected(405, f"Invalid method for URL ({method} {path})")


def _model_card() -> dict:
    return {"id": MODEL_NAME, "object": "model", "created": MODEL_CREATED, "owned_by": "aisle"}


def _model_card_for(name: str) -> dict:
    if name != MODEL_NAME:
        raise RequestRejected(
            404,
            f"The model '{name}' does not exist",
            param="model",
            code="model_not_found",
        )
    return _model_card()


async def _body_read(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def _json_send(send: Send, status: int, payload: dict) -> None:
    body = json.dumps(payload, ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
