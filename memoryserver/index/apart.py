"""A large user's index built in a process of its own, at the lowest CPU priority.

Loading a 100k-block user costs seconds of CPU: reading 150 MB of vectors and, above all,
tokenising and stemming every block's text for BM25. Done in the process that serves
searches, that work holds the GIL a millisecond at a time and every other shopper's search
waits behind it (docs/benchmarks-history.md, "Per-user locking"). Here a loader process does it,
niced so that the scheduler gives it only the CPU the serving processes leave, and writes
the index to a temporary directory: the vectors as one .npy file and everything else as
small pickled parts (`UserIndex.parts`), each a millisecond or so to take in, with the GIL
handed on between them. The parts' numpy arrays travel out of band (pickle protocol 5), each
in a file of its own: reading a file releases the GIL, and the array is then made around the
bytes read instead of copying them with the GIL held.

Each load runs `python -m memoryserver.loader` (a fresh interpreter, never a fork of the
threaded server) on the server's SQLite file, with the server's settings from the
environment; it costs about a second to start, paid only by users this large.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from memoryserver.index.slot import UserIndex

LOADER_MODULE = "memoryserver.loader"
# Where `python -m memoryserver.loader` finds the package, whatever the server's own cwd.
PROJECT_ROOT = Path(__file__).resolve().parents[2]
VECTORS_FILE = "vectors.npy"
SHARED_MEMORY = "/dev/shm"


class LoadApartFailed(RuntimeError):
    """The loader process failed; the caller loads in process instead."""


def loaded_apart(user_id: str, *, now: datetime, width: int, database: str) -> UserIndex:
    """The user's index as `memoryserver.selectors.user_index_read` builds it, built apart.

    Blocks this process until the loader is done, like a load in process (the registry
    holds only this user's lock meanwhile), then takes the index in part by part.
    """
    with tempfile.TemporaryDirectory(prefix="agentmemory-load-", dir=_scratch()) as name:
        directory = Path(name)
        done = subprocess.run(
            [sys.executable, "-m", LOADER_MODULE, user_id, now.isoformat(), str(width), name],
            cwd=PROJECT_ROOT,
            env={**os.environ, "AGENT_MEMORY_SERVER_DB": database},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise LoadApartFailed(f"the loader exited with {done.returncode}: {last}")
        count = int(done.stdout.split()[-1])
        vectors = np.load(directory / VECTORS_FILE)  # the read releases the GIL
        return UserIndex.from_parts(vectors, _parts_read(directory, count))


def _scratch() -> str | None:
    """Memory-backed scratch space when the system has it: the index is written and read back
    once, so writing it to disk would only add the kernel's writeback to the load's cost."""
    return SHARED_MEMORY if os.access(SHARED_MEMORY, os.W_OK) else None


def index_written(index: UserIndex, directory: str) -> int:
    """In the loader process: write the index's vectors and its parts; the parts' count."""
    path = Path(directory)
    np.save(path / VECTORS_FILE, index.vectors)
    count = 0
    for count, part in enumerate(index.parts(), 1):
        buffers: list[pickle.PickleBuffer] = []
        (path / f"part-{count - 1}").write_bytes(
            pickle.dumps(part, protocol=5, buffer_callback=buffers.append)
        )
        for number, buffer in enumerate(buffers):
            (path / f"part-{count - 1}.{number}").write_bytes(buffer.raw())
    return count


def _parts_read(directory: Path, count: int) -> Iterator[tuple[str, Any]]:
    for number in range(count):
        buffers: list[np.ndarray] = []
        while (buffer := directory / f"part-{number}.{len(buffers)}").exists():
            buffers.append(np.fromfile(buffer, dtype=np.uint8))
        yield pickle.loads((directory / f"part-{number}").read_bytes(), buffers=buffers)
        time.sleep(0)  # hand the GIL to waiting requests between parts
