"""What both parts share. Importing it points Django at a temporary folder and the
deployed settings, so it comes before anything of the apps."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TMP = Path(tempfile.mkdtemp(prefix="aisle-bench-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
os.environ["AISLE_VAR_DIR"] = str(TMP)
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
os.environ["OPENAI_API_KEY"] = ""
# Measured as deployed: DEBUG keeps every SQL query in memory and wraps each cursor.
os.environ["DJANGO_DEBUG"] = "false"


QUERIES = [
    "show me jeans in size M",
    "any waterproof jackets for hiking?",
    "black boots for the office",
    "a dress for a summer wedding",
    "running shoes under 100 euros",
    "linen shirts",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def fmt(values: list[float]) -> str:
    return f"p50 {pct(values, 50):7.2f} ms  p95 {pct(values, 95):7.2f} ms  (n={len(values)})"


def start_memory_server(embedder: str, *, label: str = "overhead") -> tuple[str, object]:
    from harness.memoryserver import start_agentmemory_server

    return start_agentmemory_server(TMP / f"memory-{label}", AGENT_MEMORY_EMBEDDER=embedder)


def message(i: int, size: int, purpose: str) -> str:
    """A distinct shopper message: never seen by the server before, like a real one."""
    return f"{QUERIES[i % len(QUERIES)]} ({purpose} {i}, {size} blocks)"


def server_pid_for(base_url: str) -> int:
    """The memory server's process, found by its port on the command line."""
    port = base_url.rsplit(":", 1)[1]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                args = cmdline.read()
        except OSError:
            continue
        if b"memoryserver" in args and b"--port\0" + port.encode() + b"\0" in args:
            return int(pid)
    raise RuntimeError(f"no memory server process on port {port}")
