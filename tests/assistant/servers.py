"""A memory server that fails, for turn tests.

`MemoryProxy` forwards to the live embedded memory server and answers
503 to the requests a test picks, so one search can fail while the others answer.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


Predicate = Callable[[str, str, dict[str, Any]], bool]


class MemoryProxy(_Server):
    """Forward to an Agent Memory server; answer 503 where `failing(method, path, body)`,
    and hold a request `delay(method, path, body)` seconds before forwarding it."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.failing: Predicate = lambda method, path, body: False
        self.delay: Callable[[str, str, dict[str, Any]], float] = lambda method, path, body: 0.0
        self.failed: list[str] = []
        super().__init__(self._handler())

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {}
                body = body if isinstance(body, dict) else {}
                if proxy.failing(self.command, self.path, body):
                    proxy.failed.append(f"{self.command} {self.path}")
                    self._answer(503, b'{"detail": "unavailable"}', "application/json")
                    return
                time.sleep(proxy.delay(self.command, self.path, body))
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "content-length", "connection")
                }
                response = httpx.request(
                    self.command,
                    proxy.upstream + self.path,
                    content=raw,
                    headers=headers,
                    timeout=10,
                )
                self._answer(
                    response.status_code,
                    response.content,
                    response.headers.get("content-type", "application/json"),
                )

            def _answer(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

        return Handler
