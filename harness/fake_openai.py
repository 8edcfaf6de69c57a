"""A scripted OpenAI-compatible endpoint on loopback HTTP, for the real `openai` SDK path.

Each chat-completions request pops the next scripted reply for its role (the system
prompt's role marker, else "assistant"); a role with nothing scripted gets its unscripted
reply. Replies stream as server-sent events with tool call arguments split into several
deltas, as the real API does. A reply with a `pause` streams slowly enough to stop a turn
in the middle (`slow_reply`), and `cut` is set when a client goes away in the middle of a
streamed reply.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from llm.prompts import role_of


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    status: int = 200
    delay: float = 0.0  # seconds before the reply starts
    chunks: int = 3  # the pieces the text, and each tool call's arguments, stream in
    pause: float = 0.0  # seconds between streamed pieces


# What a role with nothing scripted answers: the assistant a short text, the judge, the
# extractor and the episode writer nothing to remember.
UNSCRIPTED_ANSWER = "OK."
UNSCRIPTED_JSON = '{"facts": []}'


def slow_reply(*, words: int = 400, pause: float = 0.05) -> Reply:
    """An answer streamed a word at a time, `pause` seconds apart: long enough to stop."""
    return Reply(text="word " * words, chunks=words, pause=pause)


class FakeOpenAI:
    def __init__(self, *, unscripted: dict[str, str] | None = None) -> None:
        """`unscripted` overrides, by role, the text a role with nothing scripted answers."""
        self.scripts: dict[str, deque[Reply]] = defaultdict(deque)
        self.unscripted = {"assistant": UNSCRIPTED_ANSWER, **(unscripted or {})}
        self.requests: list[dict[str, Any]] = []
        self.finished: dict[str, list[float]] = defaultdict(list)
        self.cut = threading.Event()  # a client went away in the middle of a streamed reply
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, role: str, *replies: Reply | Callable[[dict], Reply]) -> None:
        """Queue replies for a role; a callable builds its reply from the request body."""
        self.scripts[role].extend(replies)

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                role = role_of(body.get("messages") or [])
                queue = fake.scripts[role]
                reply = (
                    queue.popleft()
                    if queue
                    else Reply(text=fake.unscripted.get(role, UNSCRIPTED_JSON))
                )
                if callable(reply):
                    reply = reply(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._json(
                        reply.status,
                        {
                            "error": {
                                "message": "scripted failure",
                                "type": "server_error",
                                "param": None,
                                "code": None,
                            }
                        },
                    )
                elif body.get("stream"):
                    try:
                        self._stream(body, reply)
                    except (BrokenPipeError, ConnectionResetError):
                        fake.cut.set()
                        return
                else:
                    message = {"role": "assistant", "content": reply.text}
                    self._json(
                        200,
                        {
                            "id": "chatcmpl-fake",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body.get("model"),
                            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        },
                    )
                fake.finished[role].append(time.monotonic())

            def _json(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()

                def chunk(delta: dict, finish: str | None = None) -> None:
                    payload = {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": body.get("model"),
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                    }
                    self._write(f"data: {json.dumps(payload)}\n\n")
                    if reply.pause and delta:
                        time.sleep(reply.pause)

                chunk({"role": "assistant", "content": ""})
                if reply.text:
                    size = max(1, len(reply.text) // reply.chunks)
                    for start in range(0, len(reply.text), size):
                        chunk({"content": reply.text[start : start + size]})
                for index, (name, arguments) in enumerate(reply.tool_calls):
                    chunk(
                        {
                            "tool_calls": [
                                {
                                    "index": index,
                                    "id": f"call_{index}",
                                    "type": "function",
                                    "function": {"name": name, "arguments": ""},
                                }
                            ]
                        }
                    )
                    size = max(1, len(arguments) // reply.chunks)
                    for start in range(0, len(arguments), size):
                        chunk(
                            {
                                "tool_calls": [
                                    {
                                        "index": index,
                                        "function": {"arguments": arguments[start : start + size]},
                                    }
                                ]
                            }
                        )
                chunk({}, "tool_calls" if reply.tool_calls else "stop")
                self._write("data: [DONE]\n\n")
                self._write("")

            def _write(self, text: str) -> None:
                data = text.encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        return Handler
