"""What every part shares: the blocks' and queries' texts, the figures' format, scratch
folders, and this benchmark run again in a child process with the server's settings."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


PRODUCTS = [
    "Trail Runner 2",
    "Storm Shell",
    "Alpine Fleece",
    "Canyon Pack",
    "Summit Boot",
    "City Tote",
]


COLOURS = ["red", "blue", "black", "green", "grey", "brown", "white"]


QUERIES = [
    "waterproof jacket for hiking",
    "running shoes size 42",
    "warm fleece for winter",
    "backpack for a day trip",
    "brown leather boots",
    "something for rainy city commutes",
]


def block_text(n: int) -> str:
    product, colour = PRODUCTS[n % len(PRODUCTS)], COLOURS[(n // 7) % len(COLOURS)]
    return (
        f"Shopper asked about the {colour} {product} (note {n}); size {36 + n % 12} was discussed."
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def fmt(values: list[float]) -> str:
    return f"p50 {pct(values, 50):6.2f} ms  p95 {pct(values, 95):6.2f} ms  (n={len(values)})"


def scratch(prefix: str) -> Path:
    """A temporary directory for one part's databases, removed when the benchmark exits: a
    cold part leaves over a gigabyte of SQLite behind."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return Path(path)


def child_run(argv: list[str], **settings: str) -> None:
    """This benchmark again, in a child process on the server's settings and `settings`: a
    part that runs the server's code in process starts it from a fresh interpreter."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryserver.settings",
        **settings,
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "benchmarks.agent_memory_server", *argv]
    subprocess.run(command, env=env, check=True)
