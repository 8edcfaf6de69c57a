"""Loopback ports for the servers the tests and the benchmarks start.

port = free_port()
"""

from __future__ import annotations

import itertools
import os
import socket
from pathlib import Path

# Ports for servers a test starts, handed out below the kernel's ephemeral range: a port
# from bind(0) is free only until someone else's bind(0) or outgoing connection takes it,
# and a server takes a second or more to bind it. Twice the suite saw its daphne's port
# answered by another worker's fake model server. Below the range nothing is handed out
# by the kernel, and each pytest-xdist worker draws from a block of its own.
PORT_BLOCK = 400
PORT_BLOCKS = 16


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _port_block() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) + 1 if worker.startswith("gw") and worker[2:].isdigit() else 0
    start = max(1024, _ephemeral_low() - PORT_BLOCK * PORT_BLOCKS) + PORT_BLOCK * (
        index % PORT_BLOCKS
    )
    return range(start, start + PORT_BLOCK)


# A process starts at its own offset in its block: two runs side by side rarely collide,
# and the bind below catches it when they do.
_ports_next = itertools.count(os.getpid())


def free_port() -> int:
    """A loopback port free now that no other worker of the run, nor the kernel, hands out."""
    block = _port_block()
    for _ in range(len(block)):
        port = block[next(_ports_next) % len(block)]
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    # The whole block busy (a long run's servers lingering): the kernel's choice then.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
