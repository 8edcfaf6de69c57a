"""Part 2: daphne and the memory server in their own processes, and signed-in shoppers on
websockets, each opening the panel and then sending its messages, all at once."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.overhead.common import ROOT, fmt, message, start_memory_server


def shopper_cookies(count: int) -> list[str]:
    script = (
        "from django.contrib.auth import get_user_model\n"
        "from django.contrib.sessions.backends.db import SessionStore\n"
        "from shop.services import shopper_get_or_create\n"
        "from django.contrib.auth import SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY\n"
        f"for i in range({count}):\n"
        "    user = shopper_get_or_create(username=f'load-{i:03d}')\n"
        "    s = SessionStore()\n"
        "    s[SESSION_KEY] = str(user.pk)\n"
        "    s[BACKEND_SESSION_KEY] = 'django.contrib.auth.backends.ModelBackend'\n"
        "    s[HASH_SESSION_KEY] = user.get_session_auth_hash()\n"
        "    s.save()\n"
        "    print('session-key', s.session_key)\n"
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=os.environ,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # The shell may print its own lines (auto-imports); keep only ours.
    return [line.split()[1] for line in out.splitlines() if line.startswith("session-key ")]


async def one_shopper(port: int, cookie: str, rounds: int, results: dict) -> None:
    import websockets

    session_id = None
    remembering = True
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/assistant/",
            additional_headers={
                "Cookie": f"sessionid={cookie}",
                "Origin": f"http://127.0.0.1:{port}",
            },
            open_timeout=30,
        ) as socket:
            # As the panel does when it opens: a hello first, answered by the greeting.
            await socket.send(json.dumps({"type": "hello", "page": {"kind": "other"}}))
            while json.loads(await asyncio.wait_for(socket.recv(), 60))["type"] != "welcome":
                pass
            for turn in range(rounds):
                frame = {
                    "type": "message",
                    "text": message(turn, 0, f"shopper {cookie[:8]} turn"),
                    "session_id": session_id,
                    "turn_count": turn,
                    "session_date": None,
                    "retention": None,
                }
                started = time.perf_counter()
                await socket.send(json.dumps(frame))
                while True:
                    event = json.loads(await asyncio.wait_for(socket.recv(), 60))
                    if os.environ.get("BENCH_DEBUG"):
                        print(event["type"], str(event)[:150])
                    if event["type"] == "session":
                        session_id = event["session_id"]
                        remembering = event["mode"] == "remembering"
                        if not remembering:
                            results["degraded"].append((turn, event["mode"]))
                    elif event["type"] == "memory.searched" and event["failed"]:
                        results["recall_failed"].append(event["failed"])
                    elif event["type"] == "done":
                        results["done"].append((time.perf_counter() - started) * 1000)
                        # How long opening the session took, against its bound.
                        for span in event.get("spans", []):
                            if span["name"] == "memory.session":
                                results["session_open"][turn > 0].append(span["duration_ms"])
                        if not remembering:
                            break  # no memory.added follows
                    elif event["type"] == "memory.added":
                        results["added"].append((time.perf_counter() - started) * 1000)
                        break
                    elif event["type"] == "error":
                        results["errors"].append(event["message"])
                        break
    except Exception as exc:  # a benchmark counts failures instead of stopping at the first
        results["errors"].append(repr(exc))


def part_two(args: argparse.Namespace) -> None:
    from harness.daphne import daphne_start

    embedder = args.embedders[0]
    base_url, stop_memory = start_memory_server(embedder, label="load")
    env = {**os.environ, "AGENT_MEMORY_URL": base_url}
    cookies = shopper_cookies(args.shoppers)
    log_dir = Path(tempfile.mkdtemp(prefix="aisle-bench-daphne-"))
    shop = daphne_start("config.asgi:application", env=env, log_dir=log_dir)
    port = shop.port
    try:
        results: dict = {
            "done": [],
            "added": [],
            "errors": [],
            "degraded": [],
            "recall_failed": [],
            "session_open": {False: [], True: []},
        }

        async def everyone() -> float:
            started = time.perf_counter()
            await asyncio.gather(*(one_shopper(port, c, args.rounds, results) for c in cookies))
            return time.perf_counter() - started

        wall = asyncio.run(everyone())
        turns = args.shoppers * args.rounds
        print(
            f"Part 2: {args.shoppers} concurrent shoppers x {args.rounds} turns on the offline model "
            f"(daphne + embedded memory server, {embedder} embedder)"
        )
        print(
            f"  errors (no answer): {len(results['errors'])} of {turns} turns  {results['errors'][:3]}"
        )
        first_degraded = sum(1 for turn, _ in results["degraded"] if turn == 0)
        print(
            f"  answered without memory (the session bound ran out under load): "
            f"{len(results['degraded'])} of {turns} turns ({first_degraded} of them first turns)"
        )
        failed_calls = sorted({name for failed in results["recall_failed"] for name in failed})
        print(
            f"  recalled only in part (a search past its bound): "
            f"{len(results['recall_failed'])} of {turns} turns {failed_calls}"
        )
        from memoryapp.sessions import SESSION_OPEN_CAP, SESSION_TRIP_SLACK

        timeout = float(os.environ.get("AGENT_MEMORY_TIMEOUT_SECONDS", "1")) * 1000
        print(
            f"  session open bound: {timeout * SESSION_TRIP_SLACK:.0f} ms + {timeout:.0f} ms per "
            f"round trip, at most {timeout * SESSION_OPEN_CAP:.0f} ms"
        )
        for later, label in ((False, "first turns (mint)"), (True, "later turns (resume)")):
            opened = results["session_open"][later]
            if opened:
                print(f"  session open, {label:<20} {fmt(opened)}  max {max(opened):.0f} ms")
        print(f"  send -> done          {fmt(results['done'])}")
        print(f"  send -> memory.added  {fmt(results['added'])}")
        print(f"  wall time {wall:.1f} s, {turns / wall:.1f} turns/s")
    finally:
        shop.stop()
        stop_memory()
        shutil.rmtree(log_dir, ignore_errors=True)
