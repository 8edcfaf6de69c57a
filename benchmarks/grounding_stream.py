"""Benchmark what the grounding check costs a streamed answer: first token and last.

    .venv/bin/python -m benchmarks.grounding_stream [--runs 20] [--pauses 0,15]

A scripted OpenAI-compatible endpoint on loopback HTTP (httpx's ASGITransport would buffer
the whole answer, design section 7) streams a realistic answer word by word after a search
result: an opening sentence, four list lines with prices and a closing question. The agent
loop reads it through the `openai` SDK twice per run: with the grounding check (each
sentence released once it is complete and checked) and with it replaced by a pass-through.
For each pause per word it prints the median time to the first token and to the last, and
the time spent checking.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The agent loop imports the catalog's models; this benchmark reads no database.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

import django

django.setup()
logging.getLogger("httpx2").setLevel(logging.WARNING)
logging.getLogger("httpx").setLevel(logging.WARNING)

import openai  # noqa: E402

from assistant.turn import agent  # noqa: E402
from assistant.turn.agent import FinalEvent, TokenEvent, agent_run  # noqa: E402
from assistant.turn.grounding import AnswerGrounder  # noqa: E402
from assistant.turn.tools import ToolOutcome  # noqa: E402

VOCABULARY = {
    "colours": ["black", "white", "grey", "navy", "blue", "red", "green", "yellow"],
    "sizes": ["XS", "S", "M", "L", "XL", "XXL"],
}
# The loop reads the catalog's colours and sizes from the search tool's schema.
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_products",
            "parameters": {
                "type": "object",
                "properties": {
                    "colour": {"type": "string", "enum": VOCABULARY["colours"]},
                    "size": {"type": "string", "enum": VOCABULARY["sizes"]},
                },
            },
        },
    }
]
PRODUCTS = [
    {
        "sku": f"TS-000{i}",
        "name": name,
        "price_eur": 20.0 + i,
        "colours": ["navy", "white"],
        "sizes_in_stock": ["S", "M", "L"],
        "url": f"/products/ts-000{i}/",
        "blurb": "Light enough for summer.",
    }
    for i, name in enumerate(
        ["Vela Crew Tee", "Fjord & Pine Pocket Tee", "Tern Relaxed Linen Tee", "Mistral Tee"]
    )
]
ANSWER = (
    "I found 4 t-shirts in M under €30, all in navy or white.\n\n"
    + "".join(
        f"- **{p['name']}** — €{p['price_eur']:.2f}, light enough for summer.\n" for p in PRODUCTS
    )
    + "\nWant me to check a size or colour for one of these?"
)


def _server(pause_s: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            has_result = any(m.get("role") == "tool" for m in body["messages"])
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if has_result:
                words = ANSWER.split(" ")
                deltas = [
                    {"content": w + (" " if i < len(words) - 1 else "")}
                    for i, w in enumerate(words)
                ]
            else:
                call = {"name": "search_products", "arguments": '{"category": "t-shirts"}'}
                deltas = [
                    {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": call}]}
                ]
            for delta in deltas:
                self._event({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
                if pause_s:
                    time.sleep(pause_s)
            self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            self._write("data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _event(self, payload: dict) -> None:
            payload = {
                "id": "x",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                **payload,
            }
            self._write(f"data: {json.dumps(payload)}\n\n")

        def _write(self, text: str) -> None:
            data = text.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class PassThrough(AnswerGrounder):
    def feed(self, text: str) -> str:
        return text

    def flush(self) -> str:
        return ""


async def one_turn(client: openai.AsyncOpenAI) -> tuple[float, float, float]:
    async def run_tool(name: str, arguments: str) -> ToolOutcome:
        content = {"products": PRODUCTS, "count": 4, "total": 4, "offset": 0}
        return ToolOutcome(content, "4 products", PRODUCTS)

    started = time.perf_counter()
    first = None
    check_ms = 0.0
    run = agent_run(
        client=client,
        model="m",
        messages=[{"role": "user", "content": "t-shirts in M under 30"}],
        tools=TOOLS,
        run_tool=run_tool,
    )
    async for event in run:
        if isinstance(event, TokenEvent) and first is None:
            first = time.perf_counter() - started
        if isinstance(event, FinalEvent):
            check_ms = event.grounding.check_ms
    return (first or 0.0) * 1000, (time.perf_counter() - started) * 1000, check_ms


async def measure(pause_ms: float, runs: int) -> list[str]:
    server = _server(pause_ms / 1000)
    host, port = server.server_address[:2]
    client = openai.AsyncOpenAI(api_key="x", base_url=f"http://{host}:{port}/v1")
    figures = {"grounded": [], "pass-through": []}
    try:
        for _ in range(runs):
            for name in figures:
                agent.AnswerGrounder = AnswerGrounder if name == "grounded" else PassThrough
                figures[name].append(await one_turn(client))
    finally:
        agent.AnswerGrounder = AnswerGrounder
        await client.close()
        server.shutdown()
    rows = []
    for name, runs_of in figures.items():
        first = statistics.median(r[0] for r in runs_of)
        last = statistics.median(r[1] for r in runs_of)
        check = statistics.median(r[2] for r in runs_of)
        rows.append(
            f"| {pause_ms:g} ms | {name} | {first:.1f} ms | {last:.1f} ms | {check:.2f} ms |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--pauses", default="0,15")
    args = parser.parse_args()
    words = len(ANSWER.split(" "))
    print(f"answer: {words} word chunks, {len(ANSWER)} characters; medians of {args.runs} runs")
    print("| pause per word | check | first token | last token | checking, whole answer |")
    print("|---|---|---|---|---|")
    for pause in args.pauses.split(","):
        for row in asyncio.run(measure(float(pause), args.runs)):
            print(row)


if __name__ == "__main__":
    main()
