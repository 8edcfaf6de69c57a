"""Benchmark what a turn costs a hosted model: input tokens per call, and CPU per turn.

    .venv/bin/python -m benchmarks.turn_cost [--long 30] [--visits 20] [--visit-turns 5]
        [--embedder minilm] [--clients honest,lying]

A scripted OpenAI-compatible endpoint on loopback logs every request the app and the
embedded memory server send it: the assistant's two rounds (a search_products call, then a
four-product answer written from the tool's result), the fact judge, the server's
extraction of each stored exchange, and the visit summary when a visit closes. One shopper
per client has a --long-turn visit, then --visits visits of --visit-turns turns, through
the turn pipeline (`assistant.turn.pipeline.turn_run`) with the bundled catalog. An honest
client sends the session's turn count; a lying one always sends 0 (as a REST caller that
leaves it out does).

Tokens are memoryapp.render.tokens_estimate, the estimate the notes budget uses (cl100k's
pre-tokenizer split, each piece counted; no tokenizer of the hosted models works offline): each message's
text, its tool calls' arguments, the tools schema as JSON, and 4 tokens per message for
the chat format. A turn's tokens are its two rounds, its judge call, its exchange's
extraction and its share of the visit summary (the summary over the visit's turns).

Printed: tokens per call kind (p50/p95/max), the notes message, the honest client's
return-visit turns whose notes carry at least one exchange of an earlier visit, whole
turns by turn number in the long visit and by past visits, the honest client's turn by part (system
prompt, tools schema, notes, tool result, ... of both rounds, judge, extraction, summary
share) at the p50 and p95 turns, the lying client's turns against the honest one's at each
turn number, and CPU per turn: the app (this process, less the scripted
endpoint's threads) and the memory server (its process). Everything runs against
127.0.0.1 with temporary databases.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import logging
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.cost.script import SCRIPT

# The memory server's folder; the shop's own is catalog_timing.shop_ready's.
TMP = Path(tempfile.mkdtemp(prefix="aisle-bench-cost-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
os.environ["DJANGO_DEBUG"] = "false"
# Tokens, not latency: a read that times out on a busy machine would shrink the notes.
os.environ.setdefault("AGENT_MEMORY_TIMEOUT_SECONDS", "10")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def figures(values: list[float]) -> str:
    if not values:
        return "-"
    return (
        f"p50 {pct(values, 50):6.0f}  p95 {pct(values, 95):6.0f}  max {max(values):6.0f}"
        f"  (n={len(values)})"
    )


class Endpoint:
    """The scripted model: answers each role, logs each request with the turn it belongs to."""

    def __init__(self) -> None:
        from harness.fake_openai import FakeOpenAI, Reply

        self.fake = FakeOpenAI()
        self.Reply = Reply
        self.turn: tuple[str, int] | None = None
        self.calls: list[tuple[tuple[str, int] | None, str, dict]] = []
        self.cpu = 0.0
        self._lock = threading.Lock()
        for role in ("assistant", "judge", "extraction", "episode"):
            self.fake.scripts[role] = _Endless(self._reply_for(role))

    def _reply_for(self, role: str):
        def reply(body: dict):
            started = time.thread_time()
            try:
                with self._lock:
                    self.calls.append((self.turn, role, body))
                return getattr(self, f"_{role}")(body)
            finally:
                with self._lock:
                    self.cpu += time.thread_time() - started

        return reply

    def _assistant(self, body: dict):
        messages = body["messages"]
        tool = next((m for m in reversed(messages) if m.get("role") == "tool"), None)
        if tool is None:
            text = messages[-1]["content"]
            arguments = {"query": re.sub(r"[^\w ]", " ", text)[:60].strip()}
            return self.Reply(tool_calls=[("search_products", json.dumps(arguments))])
        products = (json.loads(tool["content"]).get("products") or [])[:4]
        total = json.loads(tool["content"]).get("total", len(products))
        lines = [f"Here are {len(products)} of {total} I found:"]
        lines += [f"- **{p['name']}**: {p.get('blurb') or ''}".rstrip() for p in products]
        if not products:
            lines = ["Nothing matches that; shall I widen the search?"]
        lines.append("Would you like any of these in your size?")
        return self.Reply(text="\n".join(lines))

    def _judge(self, body: dict):
        said = body["messages"][-1]["content"]
        facts = []
        for message, stated in SCRIPT:
            if stated and json.dumps(message) in said:
                facts = [{"fact": f, "category": c, "slot": s, "value": v} for f, c, s, v in stated]
        return self.Reply(text=json.dumps({"facts": facts}))

    def _extraction(self, body: dict):
        from llm.transcript import products_shown_parse

        text = json.loads(body["messages"][-1]["content"].split("\n", 1)[1])["text"]
        asked = text.split("\n", 1)[0][:160]
        shown = products_shown_parse(text)
        summary = f"The shopper asked for {asked}; the assistant showed {len(shown)} products."
        # As the extraction prompt asks: short lines keeping names, colours, sizes, prices.
        contexts = [f"Shopper asked: {asked}"]
        if shown:
            contexts.append("Shown: " + ", ".join(f"{p.name} (€{p.price_eur:.2f})" for p in shown))
            contexts.append("Colours: " + "; ".join("/".join(p.colours) for p in shown))
            sizes = sorted({size for p in shown for size in p.sizes})
            contexts.append("Sizes in stock: " + "/".join(sizes))
        return self.Reply(text=json.dumps({"summary": summary, "contexts": contexts}))

    def _episode(self, body: dict):
        summary = "The shopper looked at shirts, chinos and shoes; several were shown."
        return self.Reply(
            text=json.dumps(
                {"summary": summary, "occasion": None, "found": False, "follow_ups": []}
            )
        )


class _Endless:
    """A script queue that never runs out: every pop is the same callable."""

    def __init__(self, reply) -> None:
        self.reply = reply

    def __bool__(self) -> bool:
        return True

    def popleft(self):
        return self.reply

    def extend(self, replies) -> None:
        pass


def request_tokens(body: dict) -> int:
    from memoryapp.render import tokens_estimate

    total = 0
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        total += 4 + tokens_estimate(content or "")
        for call in message.get("tool_calls") or []:
            total += tokens_estimate(json.dumps(call.get("function", {}), ensure_ascii=False))
    if body.get("tools"):
        total += tokens_estimate(json.dumps(body["tools"], ensure_ascii=False))
    return total


def request_parts(body: dict) -> dict[str, int]:
    """An assistant request's tokens by part: the same count as request_tokens, split."""
    from llm.prompts import NOTES_OPEN
    from memoryapp.render import tokens_estimate

    parts: dict[str, int] = defaultdict(int)
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        content = content or ""
        role = message.get("role")
        if role == "system":
            part = "system prompt" if index == 0 else "page context"
        elif role == "user":
            part = "notes" if NOTES_OPEN in content else "shopper message"
        elif role == "tool":
            part = "tool result"
        else:
            part = "tool call"
        parts[part] += 4 + tokens_estimate(content)
        for call in message.get("tool_calls") or []:
            function = json.dumps(call.get("function", {}), ensure_ascii=False)
            parts["tool call"] += tokens_estimate(function)
    if body.get("tools"):
        parts["tools schema"] += tokens_estimate(json.dumps(body["tools"], ensure_ascii=False))
    return parts


def notes_tokens(body: dict) -> int | None:
    from llm.prompts import NOTES_OPEN
    from memoryapp.render import tokens_estimate

    for message in body.get("messages") or []:
        if message.get("role") == "user" and NOTES_OPEN in str(message.get("content")):
            return tokens_estimate(message["content"])
    return None


def server_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def shopper_run(
    *, client: str, endpoint: Endpoint, server_pid: int, visits: list[int], cpu: dict
) -> None:
    from asgiref.sync import sync_to_async
    from django.contrib.auth import get_user_model

    from assistant.protocol.validation import CloseRequest, TurnRequest
    from assistant.turn.pipeline import conversation_close, turn_run
    from shop.services import shopper_get_or_create

    username = f"cost-{client}"
    await sync_to_async(shopper_get_or_create)(username=username, display_name="Tess")
    user = await sync_to_async(get_user_model().objects.get)(username=username)
    turn_number = 0
    for visit, turns in enumerate(visits):
        session_id = None
        for i in range(turns):
            text = SCRIPT[(turn_number if visit == 0 else visit * 7 + i) % len(SCRIPT)][0]
            endpoint.turn = (client, turn_number)
            told = i if client == "honest" else 0
            app_before, server_before = time.process_time(), server_cpu(server_pid)
            fake_before = endpoint.cpu
            request = TurnRequest(text=text, session_id=session_id, turn_count=told)
            async for event in turn_run(user=user, request=request):
                if event.type == "session":
                    session_id = event.session_id
            await _extraction_settled(endpoint, client, turn_number)
            app = time.process_time() - app_before - (endpoint.cpu - fake_before)
            cpu[client].append((app * 1000, (server_cpu(server_pid) - server_before) * 1000))
            turn_number += 1
        endpoint.turn = (client, -visit - 1)  # the visit's summary, shared by its turns
        await conversation_close(user=user, request=CloseRequest(session_id=session_id))


async def _extraction_settled(endpoint: Endpoint, client: str, turn_number: int) -> None:
    """Wait (a bound, not a timing) for the server to extract the exchange just stored."""
    give_up = time.monotonic() + 10
    while time.monotonic() < give_up:
        if any(
            turn == (client, turn_number) and role == "extraction"
            for turn, role, _ in endpoint.calls
        ):
            return
        await asyncio.sleep(0.01)


def reach(endpoint: Endpoint, visits: list[int]) -> str:
    """Of the honest client's return-visit turns, those whose round-1 notes hold at least one
    exchange of an earlier visit (a line labelled "earlier visit")."""
    from llm.note_lines import EARLIER_VISIT
    from llm.prompts import NOTES_OPEN

    first_return = visits[0]
    carried: dict[int, bool] = {}
    for turn, role, body in endpoint.calls:
        if role != "assistant" or turn is None or turn[0] != "honest" or turn[1] < first_return:
            continue
        if any(m.get("role") == "tool" for m in body["messages"]):
            continue  # round 2 repeats round 1's notes
        notes = next(
            (
                m["content"]
                for m in body["messages"]
                if m.get("role") == "user" and NOTES_OPEN in str(m.get("content"))
            ),
            "",
        )
        carried[turn[1]] = f"[{EARLIER_VISIT} " in notes
    return f"{sum(carried.values())} of {len(carried)}"


def report(endpoint: Endpoint, visits: list[int], cpu: dict, clients: list[str]) -> None:
    per_turn: dict[str, dict[int, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    kinds: dict[str, list[float]] = defaultdict(list)
    notes: list[float] = []
    summaries: dict[tuple[str, int], int] = {}
    parts: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for turn, role, body in endpoint.calls:
        if turn is None:
            continue
        client, number = turn
        tokens = request_tokens(body)
        if role == "assistant":
            kind = (
                "round 2" if any(m.get("role") == "tool" for m in body["messages"]) else "round 1"
            )
            if kind == "round 1" and client == "honest":
                found = notes_tokens(body)
                if found is not None:
                    notes.append(found)
        else:
            kind = {"episode": "visit summary"}.get(role, role)
        if number < 0:
            summaries[(client, -number - 1)] = tokens
        else:
            per_turn[client][number][kind] = per_turn[client][number].get(kind, 0) + tokens
        if client == "honest":
            kinds[kind].append(tokens)
            if number >= 0:
                split = request_parts(body) if role == "assistant" else {kind: tokens}
                for part, count in split.items():
                    parts[number][part] += count

    starts = [sum(visits[:v]) for v in range(len(visits))]
    whole: dict[str, dict[int, float]] = defaultdict(dict)
    for client in clients:
        for visit, (start, turns) in enumerate(zip(starts, visits, strict=True)):
            share = summaries.get((client, visit), 0) / turns
            for number in range(start, start + turns):
                whole[client][number] = sum(per_turn[client][number].values()) + share

    for visit, (start, turns) in enumerate(zip(starts, visits, strict=True)):
        for number in range(start, start + turns):
            parts[number]["visit summary"] += summaries.get(("honest", visit), 0) / turns
    print("\nInput tokens per call (honest client)")
    for kind in ("round 1", "round 2", "judge", "extraction", "visit summary"):
        print(f"  {kind:<16}{figures(kinds.get(kind, []))}")
    print(f"  {'notes message':<16}{figures(notes)}")
    print(
        f"  return-visit turns whose notes carry an earlier-visit exchange: {reach(endpoint, visits)}"
    )
    for client in clients:
        print(f"\nWhole turn, {client} client: {figures(list(whole[client].values()))}")
        long = visits[0]
        for low in range(0, long, 5):
            numbers = range(low, min(low + 5, long))
            print(
                f"  visit 1, turns {low + 1:>2}-{numbers[-1] + 1:<2}  "
                f"{figures([whole[client][n] for n in numbers])}"
            )
        for low in range(1, len(visits), 5):
            group = range(low, min(low + 5, len(visits)))
            numbers = [n for v in group for n in range(starts[v], starts[v] + visits[v])]
            print(
                f"  {low:>2}-{group[-1]:<2} past visits  "
                f"{figures([whole[client][n] for n in numbers])}"
            )
        r1 = [per_turn[client][n].get("round 1", 0) for n in whole[client]]
        print(f"  round 1          {figures(r1)}")
    if "honest" in clients:
        print("\nWhole turn by part, honest client (both rounds summed)")
        ordered = sorted(whole["honest"], key=whole["honest"].get)
        p50_turn = ordered[min(len(ordered) - 1, round(0.50 * (len(ordered) - 1)))]
        p95_turn = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(
            f"  {'part':<16}{'p50 of part':>12}{'p95 of part':>12}"
            f"{f'turn {p50_turn + 1} (p50)':>16}{f'turn {p95_turn + 1} (p95)':>16}"
        )
        names = sorted({name for split in parts.values() for name in split})
        for name in [*names, "total"]:
            if name == "total":
                values = [sum(parts[n].values()) for n in whole["honest"]]
                at = [sum(parts[n].values()) for n in (p50_turn, p95_turn)]
            else:
                values = [parts[n].get(name, 0) for n in whole["honest"]]
                at = [parts[n].get(name, 0) for n in (p50_turn, p95_turn)]
            print(
                f"  {name:<16}{pct(values, 50):12.0f}{pct(values, 95):12.0f}"
                f"{at[0]:16.0f}{at[1]:16.0f}"
            )
    if {"honest", "lying"} <= set(clients):
        ratios = {n: whole["lying"][n] / whole["honest"][n] for n in whole["honest"]}
        worst = max(ratios, key=ratios.get)
        print(
            f"\nLying / honest whole turn: max {ratios[worst]:.2f} (turn {worst + 1}), "
            f"p50 {pct(list(ratios.values()), 50):.2f}"
        )
    print("\nCPU per turn (ms)")
    for client in clients:
        app = [a for a, _ in cpu[client]]
        server = [s for _, s in cpu[client]]
        print(
            f"  {client:<7} app p50 {statistics.median(app):5.1f} mean {statistics.mean(app):5.1f}"
            f"   memory server p50 {statistics.median(server):5.1f}"
            f" mean {statistics.mean(server):5.1f}"
        )


def stack_start(*, embedder: str, shop_prefix: str) -> tuple[Endpoint, Any]:
    """The scripted hosted model, the memory server (extracting with that model) and the
    shop on a throwaway database, as the benchmarks of a hosted model's turn run them."""
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpx2").setLevel(logging.WARNING)
    print(f"Machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")

    endpoint = Endpoint()
    endpoint.fake.start()
    os.environ["OPENAI_API_KEY"] = "benchmark"
    os.environ["OPENAI_BASE_URL"] = endpoint.fake.base_url

    from harness.memoryserver import agentmemory_process_start

    server = agentmemory_process_start(
        TMP / "memory",
        AGENT_MEMORY_EMBEDDER=embedder,
        AGENT_MEMORY_EXTRACTOR="model",
        OPENAI_BASE_URL=endpoint.fake.base_url,
        OPENAI_API_KEY="benchmark",
    )
    atexit.register(server.stop)
    os.environ["AGENT_MEMORY_URL"] = server.base_url

    from benchmarks.support.catalog_timing import catalog_ready, shop_ready

    shop_ready(prefix=shop_prefix)
    catalog_ready()
    return endpoint, server


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--long", type=int, default=30, help="turns of the first visit")
    parser.add_argument("--visits", type=int, default=20, help="later visits")
    parser.add_argument("--visit-turns", type=int, default=5)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--clients", default="honest,lying", type=lambda s: s.split(","))
    args = parser.parse_args()
    endpoint, server = stack_start(embedder=args.embedder, shop_prefix="aisle-bench-cost-shop-")

    visits = [args.long] + [args.visit_turns] * args.visits
    cpu: dict[str, list[tuple[float, float]]] = defaultdict(list)

    async def everything() -> None:
        from memoryapp.public import ShopperMemory

        for client in args.clients:
            await shopper_run(
                client=client,
                endpoint=endpoint,
                server_pid=server.process.pid,
                visits=visits,
                cpu=cpu,
            )
        await ShopperMemory.clients_close()

    started = time.monotonic()
    asyncio.run(everything())
    print(
        f"{len(args.clients)} shoppers x {sum(visits)} turns in {len(visits)} visits, "
        f"{args.embedder} embedder, {time.monotonic() - started:.0f} s"
    )
    report(endpoint, visits, cpu, args.clients)
    endpoint.fake.stop()


if __name__ == "__main__":
    main()
