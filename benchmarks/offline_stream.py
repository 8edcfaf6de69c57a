"""Benchmark how the offline model's answer reaches its reader: first token and last.

    .venv/bin/python -m benchmarks.offline_stream [--runs 30] [--delays 0,4,40]

One answer of the offline model (a list of four products, as after a search) is streamed
through the `openai` SDK over two in-process transports: `StreamingASGITransport` (what the
factory uses) and httpx's `ASGITransport` (which buffers the whole body). For each pause
per word (`OFFLINE_MODEL_STREAM_DELAY_MS`), it prints the median time to the first token
and to the last: with a buffering transport the first token only arrives with the last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import httpx
import openai

from llm.asgi_stream import StreamingASGITransport
from llm.factory import OFFLINE_BASE_URL, OFFLINE_MODEL
from llm.offline import OfflineModel

BLURB = "Light enough for summer holidays and the beach. Runs true to size."
PRODUCTS = [
    {"sku": f"TS-000{i}", "name": name, "price_eur": 20.0 + i, "blurb": BLURB}
    for i, name in enumerate(
        ["Vela Crew Tee", "Fjord & Pine Pocket Tee", "Tern Relaxed Linen Tee", "Mistral Tee"]
    )
]
MESSAGES = [
    {"role": "system", "content": "You are Aisle's shopping assistant."},
    {"role": "user", "content": "show me t-shirts"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search_products", "arguments": '{"category": "t-shirts"}'},
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": json.dumps({"products": PRODUCTS, "count": 4, "total": 12, "offset": 0}),
    },
]


async def one_answer(client: openai.AsyncOpenAI) -> tuple[float, float, int]:
    started = time.perf_counter()
    first = None
    words = 0
    stream = await client.chat.completions.create(
        model=OFFLINE_MODEL, messages=MESSAGES, stream=True
    )
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            words += 1
            if first is None:
                first = time.perf_counter() - started
    return (first or 0.0) * 1000, (time.perf_counter() - started) * 1000, words


async def measure(transport_name: str, delay_ms: float, runs: int) -> str:
    app = OfflineModel(stream_delay_ms=delay_ms)
    transport = (
        StreamingASGITransport(app)
        if transport_name == "streaming"
        else httpx.ASGITransport(app=app)
    )
    http = httpx.AsyncClient(transport=transport, base_url=OFFLINE_BASE_URL)
    client = openai.AsyncOpenAI(
        api_key="offline", base_url=OFFLINE_BASE_URL, http_client=http, max_retries=0
    )
    results = [await one_answer(client) for _ in range(runs)]
    await http.aclose()
    first = statistics.median(r[0] for r in results)
    last = statistics.median(r[1] for r in results)
    return (
        f"{transport_name:>9}  delay {delay_ms:4.0f} ms/word  first token {first:8.1f} ms  "
        f"last {last:8.1f} ms  ({results[0][2]} chunks, median of {runs})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--delays", default="0,4,40")
    args = parser.parse_args()
    for delay in [float(d) for d in args.delays.split(",")]:
        for name in ("streaming", "buffering"):
            runs = args.runs if delay < 20 else max(3, args.runs // 10)
            print(await measure(name, delay, runs))


if __name__ == "__main__":
    asyncio.run(main())
