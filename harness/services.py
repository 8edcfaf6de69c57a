"""Throwaway PostgreSQL and Redis servers for the test run: loopback, a free port, a temp dir.

    server = postgres_start()        # or redis_start()
    server.url                       # postgres://aisle@127.0.0.1:PORT/aisle
    server.stop()                    # stops it and deletes its files

They use Debian's `postgresql` and `redis-server` packages, which `scripts/ensure-services`
installs when they are missing and the user is root; `ServiceUnavailable` says why a
server cannot be started, and the tests that need one are skipped with that reason.

As a wrapper, it runs a command with a PostgreSQL server of its own and the command's
environment pointing the test settings at it (`TEST_DATABASE_URL`):

    python -m harness.services postgres -- python -m pytest -m database
"""

from __future__ import annotations

import argparse
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from harness.ports import free_port

POSTGRES_USER = "aisle"
POSTGRES_DB = "aisle"


class ServiceUnavailable(Exception):
    """The server cannot be started here; the message says why, in one line."""


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Server:
    name: str
    url: str
    port: int
    process: subprocess.Popen
    directory: Path
    stop_signal: int = signal.SIGTERM
    log: Path | None = None
    _stopped: bool = field(default=False, repr=False)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.process.poll() is None:
            self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        shutil.rmtree(self.directory, ignore_errors=True)

    def log_tail(self) -> str:
        return (
            self.log.read_text(errors="replace")[-3000:] if self.log and self.log.exists() else ""
        )


def postgres_bin() -> Path:
    """The directory of Debian's PostgreSQL programs (the newest installed version)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_key)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise ServiceUnavailable(
        "PostgreSQL is not installed (Debian: apt-get install postgresql; make test does it as root)"
    )


def _version_key(path: str) -> int:
    try:
        return int(Path(path).parts[-3])
    except ValueError:
        return 0


def _run_as() -> dict:
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` account."""
    if os.geteuid() != 0:
        return {}
    for name in ("postgres", "nobody"):
        try:
            account = pwd.getpwnam(name)
        except KeyError:
            continue
        return {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
    raise ServiceUnavailable(
        "running as root and there is no 'postgres' account to run PostgreSQL as"
    )


def postgres_start(*, timeout: float = 60.0) -> Server:
    """initdb a fresh cluster in a temp dir and serve it on 127.0.0.1 (trust auth, no fsync)."""
    bin_dir = postgres_bin()
    account = _run_as()
    directory = Path(tempfile.mkdtemp(prefix="aisle-postgres-"))
    if account:
        os.chown(directory, account["user"], account["group"])
    data = directory / "data"
    log = directory / "postgres.log"
    try:
        subprocess.run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                POSTGRES_USER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            cwd=directory,
            timeout=timeout,
            **account,
        )
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(directory, ignore_errors=True)
        raise ServiceUnavailable(
            f"initdb failed: {exc.stderr.decode(errors='replace')[-500:]}"
        ) from exc
    port = free_port()
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [
                str(bin_dir / "postgres"),
                "-D",
                str(data),
                "-p",
                str(port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                f"unix_socket_directories={directory}",
                # A test cluster: durability is not the point, speed is.
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
            ],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            cwd=directory,
            **account,
        )
    server = Server(
        name="postgres",
        url=f"postgres://{POSTGRES_USER}@127.0.0.1:{port}/{POSTGRES_DB}",
        port=port,
        process=process,
        directory=directory,
        stop_signal=signal.SIGINT,  # "fast" shutdown: does not wait for clients to leave
        log=log,
    )
    try:
        _wait_ready(server, timeout, lambda: _postgres_ready(bin_dir, port))
        subprocess.run(
            [
                str(bin_dir / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
                "-U",
                POSTGRES_USER,
                POSTGRES_DB,
            ],
            check=True,
            capture_output=True,
            timeout=timeout,
        )
    except BaseException:
        server.stop()
        raise
    return server


def _postgres_ready(bin_dir: Path, port: int) -> bool:
    result = subprocess.run(
        [str(bin_dir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port)],
        capture_output=True,
        timeout=10,
    )
    return result.returncode == 0


def postgres_database_create(server_url: str, name: str) -> str:
    """A new empty database on the server at `server_url`; returns its URL."""
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"


def redis_start(*, timeout: float = 30.0) -> Server:
    """Serve Redis on 127.0.0.1, in memory only (no snapshots, no append-only file)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServiceUnavailable(
            "redis-server is not installed (Debian: apt-get install redis-server; make test does it as root)"
        )
    directory = Path(tempfile.mkdtemp(prefix="aisle-redis-"))
    log = directory / "redis.log"
    port = free_port()
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(directory),
            ],
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    server = Server(
        name="redis",
        url=f"redis://127.0.0.1:{port}/0",
        port=port,
        process=process,
        directory=directory,
        log=log,
    )
    try:
        _wait_ready(server, timeout, lambda: _port_open(port))
    except BaseException:
        server.stop()
        raise
    return server


def _wait_ready(server: Server, timeout: float, ready) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise ServiceUnavailable(
                f"{server.name} exited with {server.process.returncode}: {server.log_tail()}"
            )
        if ready():
            return
        time.sleep(0.1)
    raise ServiceUnavailable(
        f"{server.name} did not start within {timeout:.0f}s: {server.log_tail()}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.services",
        description="Run a command with a throwaway PostgreSQL server (TEST_DATABASE_URL).",
    )
    parser.add_argument("service", choices=["postgres"])
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    options = parser.parse_args(argv)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("give the command to run after --")
    started = time.monotonic()
    try:
        server = postgres_start()
    except ServiceUnavailable as exc:
        print(f"PostgreSQL pass skipped: {exc}", flush=True)
        return 0
    print(
        f"PostgreSQL pass: a throwaway server on 127.0.0.1:{server.port} "
        f"(ready in {time.monotonic() - started:.1f}s)",
        flush=True,
    )
    try:
        return subprocess.call(command, env={**os.environ, "TEST_DATABASE_URL": server.url})
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
