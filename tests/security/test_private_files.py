"""What the shop and its memory server write stays the owner's only, whatever the umask.

`make run`'s own steps run in a copy of the project under a permissive umask: migrate,
seed_catalog, seed_shoppers, the token (scripts/run's `config.devserver token`), then the
memory server started with that token, as scripts/run starts it, and stopped again. Another
local account must be able to read nothing of it: `var/` is 0700, every file in it 0600,
the SQLite databases' -wal and -shm files included.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from config.devserver import token_file_read
from config.private import sqlite_files_private
from harness.ports import free_port
from tests.support.make_run import project_copy, run_env


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes_under(folder: Path) -> dict[str, int]:
    found = {".": mode(folder)}
    for path in folder.rglob("*"):
        found[str(path.relative_to(folder))] = mode(path)
    return found


def too_open(modes: dict[str, int], folder: Path) -> dict[str, str]:
    return {
        name: oct(value)
        for name, value in modes.items()
        if value & 0o077 or (name != "." and (folder / name).is_file() and value != 0o600)
    }


def stepped(project: Path, env: dict[str, str], umask: int, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        preexec_fn=lambda: os.umask(umask),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.timeout(600)
@pytest.mark.parametrize("umask", [0o022, 0o000], ids=["umask-022", "umask-000"])
def test_make_runs_setup_writes_nothing_another_account_can_read(tmp_path, umask):
    project = project_copy(tmp_path)
    memory_port = free_port()
    env = run_env(f"http://127.0.0.1:{memory_port}", free_port())
    var = project / "var"

    for step in ("migrate --noinput", "seed_catalog", "seed_shoppers"):
        stepped(project, env, umask, "manage.py", *step.split())
    token = stepped(project, env, umask, "-m", "config.devserver", "token").strip()
    assert token == token_file_read(var / "agent-memory.token")

    server = subprocess.Popen(
        [sys.executable, "-m", "memoryserver", "--port", str(memory_port)],
        cwd=project,
        env={**env, "AGENT_MEMORY_SERVER_TOKEN": token},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.umask(umask),
    )
    try:
        url = f"http://127.0.0.1:{memory_port}"
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, "the memory server exited"
            try:
                httpx.get(f"{url}/health", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.3)
        created = httpx.post(
            f"{url}/users",
            json={"user_id": "mode-probe", "name": "Mode probe"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert created.status_code in (200, 201), created.text
        # Read while the server holds its database open: its -wal and -shm exist now.
        running = modes_under(var)
    finally:
        server.terminate()
        server.wait(timeout=30)

    assert {"aisle.sqlite3", "agentmemory.sqlite3", "agent-memory.token"} <= set(running)
    assert "agentmemory.sqlite3-wal" in running and "agentmemory.sqlite3-shm" in running
    assert too_open(running, var) == {}
    assert too_open(modes_under(var), var) == {}


def test_an_older_checkouts_readable_files_are_narrowed_on_the_next_start(tmp_path):
    database = tmp_path / "var" / "aisle.sqlite3"
    database.parent.mkdir(mode=0o755)
    for name in ("aisle.sqlite3", "aisle.sqlite3-wal", "aisle.sqlite3-shm"):
        (database.parent / name).write_bytes(b"")
        (database.parent / name).chmod(0o644)
    sqlite_files_private(database)
    assert {name: mode(database.parent / name) for name in os.listdir(database.parent)} == {
        "aisle.sqlite3": 0o600,
        "aisle.sqlite3-wal": 0o600,
        "aisle.sqlite3-shm": 0o600,
    }
