"""Many shoppers chatting at once over the websocket: where a turn's time goes under load.

    .venv/bin/python -m benchmarks.shoppers_load [--shoppers 20] [--rounds 3]
        [--profiles sqlite,postgres] [--daphnes 1,2] [--embedder minilm] [--time-limit 600]

(Part 2 of `benchmarks/turn_overhead.py` runs the same, on SQLite with one daphne.)
daphne serves the app and the embedded memory server runs in its own process, both on
127.0.0.1 with temporary databases; --shoppers signed-in shoppers on websockets each open
the panel (a hello, answered by the greeting) and then send --rounds messages, all at
once, answered by the offline model. Profiles: `sqlite` (the default one, as `make run`:
one daphne on SQLite) and `postgres` (a throwaway PostgreSQL server with the shop's
pooled connections, once for each --daphnes count, the shoppers spread over the daphnes
as a proxy would). Bounded: --shoppers x --rounds turns, each event waited for at most
60 s, the whole run at most --time-limit seconds.

Printed per run: errors; turns answered without memory; turns recalled only in part (a
read past its bound), and which calls; turns whose writes were not acknowledged;
`memory.searched.duration_ms` p50/p95 against the recall's bound; how long opening the
session took; send -> done and send -> memory.added; acknowledged blocks missing from the
server afterwards (every id `memory.added` reported, looked for among every user's
blocks); an outside read's latency (`GET /users/<id>` every 100 ms) before the shoppers
start and while they chat, and the ratio of the p95s; the memory server's and the shop's
CPU per turn;
on PostgreSQL, new backends per turn (`pg_stat_database`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

# The common part sets the throwaway folder and Django's environment up on import.
from benchmarks.overhead.common import QUERIES, ROOT, TMP, server_pid_for

EVENT_TIMEOUT = 60.0
PROBE_EVERY = 0.1


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] if ordered else 0.0


def fmt(values: list[float]) -> str:
    return f"p50 {pct(values, 50):8.1f} ms  p95 {pct(values, 95):8.1f} ms  (n={len(values)})"


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def shopper_cookies(count: int, env: dict[str, str]) -> list[str]:
    script = (
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
    out = manage(env, "shell", "-c", script)
    # The shell may print its own lines (auto-imports); keep only ours.
    return [line.split()[1] for line in out.splitlines() if line.startswith("session-key ")]


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def new_results() -> dict:
    return {
        "done": [],
        "added": [],
        "errors": [],
        "degraded": [],
        "recall_failed": [],
        "searched": [],
        "acknowledged": [],
        "write_failed": [],
        "session_open": {False: [], True: []},
    }


async def one_shopper(port: int, cookie: str, rounds: int, results: dict) -> None:
    import websockets

    session_id = None
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/assistant/",
            additional_headers={
                "Cookie": f"sessionid={cookie}",
                "Origin": f"http://127.0.0.1:{port}",
            },
            open_timeout=30,
        ) as socket:

            async def received() -> dict:
                return json.loads(await asyncio.wait_for(socket.recv(), EVENT_TIMEOUT))

            # As the panel does when it opens: a hello first, answered by the greeting.
            await socket.send(json.dumps({"type": "hello", "page": {"kind": "other"}}))
            while (await received())["type"] != "welcome":
                pass
            for turn in range(rounds):
                frame = {
                    "type": "message",
                    "text": f"{QUERIES[turn % len(QUERIES)]} (shopper {cookie[:8]} turn {turn})",
                    "session_id": session_id,
                    "turn_count": turn,
                    "session_date": None,
                    "retention": None,
                }
                started = time.perf_counter()
                await socket.send(json.dumps(frame))
                remembering = True
                while True:
                    event = await received()
                    kind = event["type"]
                    if kind == "session":
                        session_id = event["session_id"]
                        remembering = event["mode"] == "remembering"
                        if not remembering:
                            results["degraded"].append((turn, event["mode"]))
                    elif kind == "memory.searched":
                        results["searched"].append(event["duration_ms"])
                        if event["failed"]:
                            results["recall_failed"].append(event["failed"])
                    elif kind == "done":
                        results["done"].append((time.perf_counter() - started) * 1000)
                        for span in event.get("spans", []):
                            if span["name"] == "memory.session":
                                results["session_open"][turn > 0].append(span["duration_ms"])
                        if not remembering:
                            break  # no memory.added follows
                    elif kind == "memory.added":
                        results["added"].append((time.perf_counter() - started) * 1000)
                        results["acknowledged"] += [
                            block for ids in event["block_ids"].values() for block in ids
                        ]
                        if event["failed"]:
                            results["write_failed"].append(event["failed"])
                        break
                    elif kind == "error":
                        results["errors"].append(event["message"])
                        break
    except Exception as exc:  # a benchmark counts failures instead of stopping at the first
        results["errors"].append(repr(exc))


async def reads_probed(base_url: str, user_id: str, stop: asyncio.Event) -> list[float]:
    """An outside read every PROBE_EVERY seconds until `stop`: its latencies in ms."""
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        while not stop.is_set():
            started = time.perf_counter()
            (await client.get(f"/users/{user_id}")).raise_for_status()
            latencies.append((time.perf_counter() - started) * 1000)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), PROBE_EVERY)
    return latencies


def blocks_on_server(base_url: str) -> set[str]:
    """Every block id on the memory server, whatever its users are called."""
    found: set[str] = set()
    with httpx.Client(base_url=base_url, timeout=60) as client:
        users = client.get("/users", params={"limit": 500, "offset": 0}).json()["users"]
        for user in users:
            offset = 0
            while True:
                page = client.get(
                    f"/users/{user['id']}/memory", params={"limit": 200, "offset": offset}
                ).json()
                found |= {block["block_id"] for block in page["memory_blocks"]}
                offset += len(page["memory_blocks"])
                if not page["memory_blocks"] or offset >= page["total"]:
                    break
    return found


def postgres_sessions(url: str) -> int:
    """Sessions (backends) ever started on the database, this one's included."""
    import psycopg

    time.sleep(1.0)  # the statistics reach pg_stat_database within a second
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("SELECT pg_stat_clear_snapshot()")
        return connection.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()[0]


def load_run(args: argparse.Namespace, *, profile: str, daphnes: int, database_url: str) -> None:
    from harness.daphne import daphne_start
    from harness.memoryserver import start_agentmemory_server

    label = f"{profile}-{daphnes}"
    base_url, stop_memory = start_agentmemory_server(
        TMP / f"memory-{label}", AGENT_MEMORY_EMBEDDER=args.embedder
    )
    env = {
        **os.environ,
        "AGENT_MEMORY_URL": base_url,
        "AGENT_MEMORY_TOKEN": "",
        "DATABASE_URL": database_url,
    }
    # As `make run` prepares the shop: the products' vectors too, or the first turns
    # would encode the catalog.
    for command in (["migrate", "-v0"], ["seed_catalog", "-v0"], ["catalog_meaning", "-v0"]):
        manage(env, *command)
    cookies = shopper_cookies(args.shoppers, env)
    log_dir = Path(tempfile.mkdtemp(prefix="aisle-bench-daphne-", dir=TMP))
    shops = [
        daphne_start(
            "config.asgi:application",
            env={"AGENT_MEMORY_URL": base_url, "DATABASE_URL": database_url},
            log_dir=log_dir,
        )
        for _ in range(daphnes)
    ]
    server_pid = server_pid_for(base_url)
    httpx.post(f"{base_url}/users", json={"user_id": "load-probe", "name": "Probe"}, timeout=10)
    results = new_results()
    try:

        async def everyone() -> tuple[float, list[float], list[float]]:
            idle_stop = asyncio.Event()
            idle = asyncio.create_task(reads_probed(base_url, "load-probe", idle_stop))
            await asyncio.sleep(30 * PROBE_EVERY)
            idle_stop.set()
            stop = asyncio.Event()
            busy = asyncio.create_task(reads_probed(base_url, "load-probe", stop))
            started = time.perf_counter()
            shoppers = asyncio.gather(
                *(
                    one_shopper(shops[n % daphnes].port, cookie, args.rounds, results)
                    for n, cookie in enumerate(cookies)
                )
            )
            try:
                await asyncio.wait_for(shoppers, args.time_limit)
            except TimeoutError:
                results["errors"].append(f"the run passed its {args.time_limit:.0f} s limit")
            stop.set()
            return time.perf_counter() - started, await idle, await busy

        sessions_before = postgres_sessions(database_url) if profile == "postgres" else 0
        cpu_before = cpu_seconds(server_pid)
        shop_cpu_before = sum(cpu_seconds(shop.process.pid) for shop in shops)
        wall, idle, busy = asyncio.run(everyone())
        server_cpu = cpu_seconds(server_pid) - cpu_before
        shop_cpu = sum(cpu_seconds(shop.process.pid) for shop in shops) - shop_cpu_before
        sessions = postgres_sessions(database_url) - sessions_before - 1 if sessions_before else 0
        report(args, results, profile=profile, daphnes=daphnes, wall=wall)
        turns = args.shoppers * args.rounds
        missing = set(results["acknowledged"]) - blocks_on_server(base_url)
        print(
            f"  acknowledged blocks missing from the server: {len(missing)} of "
            f"{len(results['acknowledged'])}"
        )
        ratio = pct(busy, 95) / max(pct(idle, 95), 1e-9)
        print(f"  outside read GET /users/<id>, idle      {fmt(idle)}")
        print(f"  outside read GET /users/<id>, under load {fmt(busy)}  max {max(busy):.0f} ms")
        print(f"  outside read p95 under load / idle: {ratio:.2f}")
        print(f"  memory server CPU per turn: {server_cpu * 1000 / turns:.0f} ms")
        print(f"  shop (daphne) CPU per turn: {shop_cpu * 1000 / turns:.0f} ms")
        if profile == "postgres":
            print(f"  new PostgreSQL backends per turn: {sessions / turns:.2f} ({sessions} in all)")
    finally:
        for shop in shops:
            shop.stop()
        stop_memory()
        if args.logs is not None:  # the run's folder goes when the script ends
            shutil.copytree(log_dir, args.logs / label, dirs_exist_ok=True)
            shutil.copytree(
                TMP / f"memory-{label}",
                args.logs / f"memory-{label}",
                dirs_exist_ok=True,
            )


def report(args: argparse.Namespace, results: dict, *, profile: str, daphnes: int, wall: float):
    from memoryapp.recall import RECALL_GRACE
    from memoryapp.sessions import SESSION_OPEN_CAP, SESSION_TRIP_SLACK

    turns = args.shoppers * args.rounds
    print(
        f"\n{args.shoppers} concurrent shoppers x {args.rounds} turns, offline model, "
        f"{args.embedder} embedder, {profile}, {daphnes} daphne(s); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"  errors (no answer): {len(results['errors'])} of {turns}  {results['errors'][:3]}")
    first = sum(1 for turn, _ in results["degraded"] if turn == 0)
    print(
        f"  answered without memory: {len(results['degraded'])} of {turns} turns "
        f"({first} of them first turns)"
    )
    failed = sorted({name for names in results["recall_failed"] for name in names})
    print(
        f"  recalled only in part (a read past its bound): {len(results['recall_failed'])} "
        f"of {turns} turns {failed}"
    )
    timeout = float(os.environ.get("AGENT_MEMORY_TIMEOUT_SECONDS", "1")) * 1000
    print(
        f"  memory.searched.duration_ms {fmt(results['searched'])}  bound {timeout:.0f} ms "
        f"(up to {timeout * (1 + RECALL_GRACE):.0f} while memory answers others)"
    )
    print(
        f"  session open bound: {timeout * (1 + SESSION_TRIP_SLACK):.0f} ms + {timeout:.0f} ms "
        f"per further round trip, at most {timeout * SESSION_OPEN_CAP:.0f} ms"
    )
    for later, label in ((False, "first turns (mint)"), (True, "later turns (resume)")):
        opened = results["session_open"][later]
        if opened:
            print(f"  session open, {label:<20} {fmt(opened)}  max {max(opened):.0f} ms")
    failed = sorted({name for names in results["write_failed"] for name in names})
    print(
        f"  writes not acknowledged (past their bound or refused): "
        f"{len(results['write_failed'])} of {turns} turns {failed}"
    )
    print(f"  send -> done          {fmt(results['done'])}")
    print(f"  send -> memory.added  {fmt(results['added'])}")
    print(f"  wall time {wall:.1f} s, {turns / wall:.1f} turns/s")


def loads_run(args: argparse.Namespace) -> None:
    for profile in args.profiles:
        if profile == "sqlite":
            url = f"sqlite:///{TMP / 'load-aisle.sqlite3'}"
            load_run(args, profile="sqlite", daphnes=1, database_url=url)
            continue
        from harness.services import postgres_database_create, postgres_start

        server = postgres_start()
        try:
            for daphnes in args.daphnes:
                url = postgres_database_create(server.url, f"load_{daphnes}")
                load_run(args, profile="postgres", daphnes=daphnes, database_url=url)
        finally:
            server.stop()


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shoppers", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--profiles", default="sqlite", type=lambda s: s.split(","))
    parser.add_argument("--daphnes", default="1,2", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument(
        "--logs", type=Path, default=None, help="copy the daphnes' and the server's logs here"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    arguments(parser)
    args = parser.parse_args()
    if not 1 <= args.shoppers <= 500 or not 1 <= args.rounds <= 20:
        parser.error("--shoppers 1..500 and --rounds 1..20 keep the run bounded")
    print(f"Machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    loads_run(args)


if __name__ == "__main__":
    main()
