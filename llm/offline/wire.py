"""Chat-completions wire format: the JSON body, the SSE chunks and the error body."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterator

from llm.offline.replies import Reply

# Chunk sizes: a word of text per chunk, as a real model streams; tool arguments in a few
# pieces, so callers really exercise delta accumulation.
_TEXT_WORDS_PER_CHUNK = 1
_ARGUMENT_PIECES = 3


def request_fingerprint(body: bytes) -> str:
    """Derive ids from the request so the same request always gets the same answer."""
    return hashlib.sha256(body).hexdigest()[:24]


def tool_call_id(fingerprint: str, index: int) -> str:
    return f"call_{fingerprint[:16]}{index}"


def completion_body(reply: Reply, *, model: str, fingerprint: str, usage: dict) -> dict:
    message: dict = {"role": "assistant", "content": reply.content, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": tool_call_id(fingerprint, index),
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_json(call.arguments)},
            }
            for index, call in enumerate(reply.tool_calls)
        ]
    return {
        "id": f"chatcmpl-{fingerprint}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_aisle_offline",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": usage,
    }


def completion_chunks(
    reply: Reply, *, model: str, fingerprint: str, usage: dict | None
) -> Iterator[dict]:
    """Yield the `chat.completion.chunk` objects of a streamed reply, in API order."""
    created = int(time.time())

    def chunk(delta: dict, finish_reason: str | None = None) -> dict:
        return {
            "id": f"chatcmpl-{fingerprint}",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_aisle_offline",
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }

    # Like the real API: the first chunk names the role, with empty content.
    yield chunk({"role": "assistant", "content": "" if not reply.tool_calls else None})
    if reply.tool_calls:
        for index, call in enumerate(reply.tool_calls):
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": tool_call_id(fingerprint, index),
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in split_pieces(_arguments_json(call.arguments), _ARGUMENT_PIECES):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    else:
        for piece in text_pieces(reply.content or ""):
            yield chunk({"content": piece})
    yield chunk({}, reply.finish_reason)
    if usage is not None:
        final = chunk({})
        final["choices"] = []
        final["usage"] = usage
        yield final


def sse_event(payload: dict | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {data}\n\n".encode()


def error_body(message: str, *, param: str | None = None, code: str | None = None) -> dict:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def usage_estimate(prompt_text: str, reply: Reply) -> dict:
    """Count words as tokens: deterministic, and close enough for dashboards."""
    prompt_tokens = len(prompt_text.split())
    completion_text = reply.content or "".join(
        call.name + _arguments_json(call.arguments) for call in reply.tool_calls
    )
    completion_tokens = max(1, len(completion_text.split()))
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def text_pieces(text: str) -> list[str]:
    """Split text into word-group deltas that concatenate back to exactly `text`."""
    tokens = re.findall(r"\S+\s*|\s+", text)
    return [
        "".join(tokens[i : i + _TEXT_WORDS_PER_CHUNK])
        for i in range(0, len(tokens), _TEXT_WORDS_PER_CHUNK)
    ]


def split_pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _arguments_json(arguments: dict) -> str:
    return json.dumps(arguments, ensure_ascii=False)
