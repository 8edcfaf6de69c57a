"""Benchmark a burst of new sign-ins against the shop's SQLite database.

    .venv/bin/python -m benchmarks.signin_burst [--shoppers 300] [--rounds 1] [--compare]

daphne serves the shop on a free loopback port with a fresh SQLite database in a temporary
folder (migrated and seeded first); --shoppers clients then each fetch the sign-in page and
post a new name, all at once, and the answers are counted: 302 (signed in), 503 (the
"busy, try again" page), 500 and anything else, with the burst's wall time and the p50/p95
of one sign-in. --compare runs the same burst first with Django's default SQLite options
(deferred transactions, 5 s busy timeout, rollback journal), to show what the shop's
options change. Memory plays no part in a sign-in: no memory server is started.
Everything runs against 127.0.0.1 and stops when the burst is counted (each request times
out after 120 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path

import httpx

from harness.daphne import daphne_start
from harness.ports import free_port

ROOT = Path(__file__).resolve().parents[1]

CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
DEFAULTS_SETTINGS = textwrap.dedent(
    """
    from config.settings.base import *  # noqa: F403
    from config.settings.base import DATABASES

    DATABASES["default"]["OPTIONS"] = {}  # Django's own SQLite defaults
    """
)


async def one_sign_in(base: str, name: str, timings: list[float]) -> str:
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        started = time.perf_counter()
        try:
            page = await client.get("/signin/")
            token = CSRF_RE.search(page.text)
            if page.status_code != 200 or token is None:
                return f"page {page.status_code}"
            answer = await client.post(
                "/signin/",
                data={"username": name, "csrfmiddlewaretoken": token.group(1)},
                headers={"Origin": base, "Referer": f"{base}/signin/"},
            )
        except httpx.HTTPError as exc:
            return type(exc).__name__
        timings.append(time.perf_counter() - started)
        return str(answer.status_code)


def burst(label: str, settings_module: str, shoppers: int, rounds: int, extra_path: str) -> None:
    var = Path(tempfile.mkdtemp(prefix="aisle-bench-signin-"))
    try:
        env = {
            **{
                k: v
                for k, v in os.environ.items()
                if k not in {"DATABASE_URL", "TEST_DATABASE_URL"}
            },
            "DJANGO_SETTINGS_MODULE": settings_module,
            "AISLE_VAR_DIR": str(var),
            "PYTHONPATH": os.pathsep.join([extra_path, str(ROOT)]),
            "AGENT_MEMORY_URL": f"http://127.0.0.1:{free_port()}",  # nothing there
            "DJANGO_DEBUG": "false",
            "LOG_LEVEL": "CRITICAL",
        }
        for step in (["migrate", "--noinput"], ["seed_shoppers"]):
            subprocess.run(
                [sys.executable, "manage.py", *step, "-v", "0"], cwd=ROOT, env=env, check=True
            )
        shop = daphne_start("config.asgi:application", env=env, log_dir=var)
        port = shop.port
        try:
            for round_number in range(1, rounds + 1):
                timings: list[float] = []

                async def everyone(
                    round_number: int = round_number, timings: list[float] = timings
                ) -> list[str]:
                    return await asyncio.gather(
                        *(
                            one_sign_in(
                                f"http://127.0.0.1:{port}", f"burst{round_number}-{i}", timings
                            )
                            for i in range(shoppers)
                        )
                    )

                started = time.perf_counter()
                outcomes = Counter(asyncio.run(everyone()))
                wall = time.perf_counter() - started
                ordered = sorted(timings)
                p95 = ordered[int(0.95 * (len(ordered) - 1))] if ordered else float("nan")
                print(
                    f"{label}, round {round_number}: {shoppers} new sign-ins at once -> "
                    f"{outcomes.get('302', 0)} signed in, {outcomes.get('503', 0)} busy (503), "
                    f"{outcomes.get('500', 0)} errors (500), other "
                    f"{dict((k, v) for k, v in outcomes.items() if k not in {'302', '503', '500'})}; "
                    f"wall {wall:.1f} s, one sign-in p50 {statistics.median(ordered):.2f} s "
                    f"p95 {p95:.2f} s",
                    flush=True,
                )
        finally:
            shop.stop()
    finally:
        shutil.rmtree(var, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shoppers", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--compare", action="store_true", help="first run the burst on Django's SQLite defaults"
    )
    args = parser.parse_args()
    if not 1 <= args.shoppers <= 1000:
        parser.error("--shoppers: 1 to 1000")
    scratch = tempfile.mkdtemp(prefix="aisle-bench-settings-")
    try:
        (Path(scratch) / "signin_burst_defaults.py").write_text(DEFAULTS_SETTINGS)
        if args.compare:
            burst(
                "Django's SQLite defaults",
                "signin_burst_defaults",
                args.shoppers,
                args.rounds,
                scratch,
            )
        burst(
            "the shop's SQLite settings",
            "config.settings.base",
            args.shoppers,
            args.rounds,
            scratch,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
