"""The embedded memory server's door: one random token, created once, known to both sides."""

from __future__ import annotations

import os
import runpy
import signal
import stat
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import httpx
import pytest
from django.core.management import CommandError, call_command

from config.devserver import token_accepted, token_file_ensure, token_file_read, url_remember
from harness.memoryserver import start_agentmemory_server
from harness.ports import free_port
from tests.support.make_run import project_copy, run_env

ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_token_file_is_created_once_private_and_reused(tmp_path):
    path = tmp_path / "var" / "agent-memory.token"
    first = token_file_ensure(path)
    assert len(first) >= 40 and mode(path) == 0o600
    assert token_file_ensure(path) == first == token_file_read(path)
    assert token_file_ensure(tmp_path / "elsewhere.token") != first


def test_a_readable_token_file_is_made_private_and_an_empty_one_replaced(tmp_path):
    path = tmp_path / "agent-memory.token"
    path.write_text("kept\n")
    path.chmod(0o644)
    assert token_file_ensure(path) == "kept" and mode(path) == 0o600
    path.write_text("")
    fresh = token_file_ensure(path)
    assert fresh and fresh != "kept" and token_file_read(path) == fresh


def run_helper(*args: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "config.devserver", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_the_run_script_helper_prints_the_token_it_stored(tmp_path):
    env = {"AISLE_VAR_DIR": str(tmp_path), "AGENT_MEMORY_TOKEN": ""}
    first = run_helper("token", env=env)
    assert first.returncode == 0, first.stderr
    token = first.stdout.strip()
    assert token == token_file_read(tmp_path / "agent-memory.token")
    assert mode(tmp_path / "agent-memory.token") == 0o600
    assert run_helper("token", env=env).stdout.strip() == token
    # A real server's token, when given, is what both processes get; no file is needed.
    given = run_helper(
        "token", env={"AISLE_VAR_DIR": str(tmp_path / "x"), "AGENT_MEMORY_TOKEN": "t"}
    )
    assert given.stdout.strip() == "t" and not (tmp_path / "x").exists()


def app_settings(monkeypatch, **env: str) -> dict:
    """The shop's settings as a fresh process would read them under `env`."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "config" / "settings" / "base.py"))


def test_the_apps_settings_read_the_token_file_unless_a_token_is_given(tmp_path, monkeypatch):
    token = token_file_ensure(tmp_path / "agent-memory.token")
    from_file = app_settings(monkeypatch, AISLE_VAR_DIR=str(tmp_path), AGENT_MEMORY_TOKEN="")
    assert from_file["AGENT_MEMORY_TOKEN"] == token
    assert from_file["AGENT_MEMORY_TOKEN_SOURCE"] == "file"
    given = app_settings(monkeypatch, AGENT_MEMORY_TOKEN="real-server-token")
    assert given["AGENT_MEMORY_TOKEN"] == "real-server-token"
    assert given["AGENT_MEMORY_TOKEN_SOURCE"] == "environment"
    none = app_settings(monkeypatch, AISLE_VAR_DIR=str(tmp_path / "none"), AGENT_MEMORY_TOKEN="")
    assert none["AGENT_MEMORY_TOKEN"] is None and none["AGENT_MEMORY_TOKEN_SOURCE"] is None


def test_the_url_given_to_a_run_is_kept_in_env_file(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("# mine\nLOG_LEVEL=DEBUG\n")
    assert url_remember(url="http://127.0.0.1:9090", env_file=env_file) is True
    assert url_remember(url="http://127.0.0.1:9090", env_file=env_file) is False
    url_remember(url="http://memory.internal:8080", env_file=env_file)
    assert (
        env_file.read_text()
        == "# mine\nLOG_LEVEL=DEBUG\nAGENT_MEMORY_URL=http://memory.internal:8080\n"
    )


@pytest.fixture(scope="module")
def locked_server(tmp_path_factory):
    base_url, stop = start_agentmemory_server(
        tmp_path_factory.mktemp("locked"), AGENT_MEMORY_SERVER_TOKEN="door-token"
    )
    yield base_url
    stop()


def test_the_run_script_can_tell_a_server_started_with_another_token(locked_server):
    assert token_accepted(url=locked_server, token="door-token") is True
    assert token_accepted(url=locked_server, token="another-token") is False
    assert token_accepted(url=f"http://127.0.0.1:{free_port()}", token="door-token") is None


def doctor(settings, *, url: str, token: str | None, source: str | None) -> tuple[str, str]:
    settings.AGENT_MEMORY_URL = url
    settings.AGENT_MEMORY_TOKEN = token
    settings.AGENT_MEMORY_TOKEN_SOURCE = source
    out = StringIO()
    try:
        call_command("memory_doctor", "--skip-round-trip", stdout=out)
    except CommandError as exc:
        return out.getvalue(), str(exc)
    return out.getvalue(), ""


def test_doctor_reports_a_token_from_the_file_that_the_server_accepts(settings, locked_server):
    text, error = doctor(settings, url=locked_server, token="door-token", source="file")
    assert error == ""
    assert f"AGENT_MEMORY_TOKEN             set (from {settings.AGENT_MEMORY_TOKEN_FILE})" in text
    assert "✔ auth: token accepted; requests without it are refused" in text


def test_doctor_fails_when_the_server_refuses_the_token(settings, locked_server):
    text, error = doctor(settings, url=locked_server, token="wrong", source="environment")
    assert "AGENT_MEMORY_TOKEN             set (environment)" in text
    assert "✘ auth: the server refuses the token (INVALID_TOKEN)" in text
    assert "unhealthy" in error


def test_doctor_fails_when_the_server_wants_a_token_and_none_is_set(settings, locked_server):
    text, error = doctor(settings, url=locked_server, token=None, source=None)
    assert "AGENT_MEMORY_TOKEN             not set" in text
    assert "✘ auth: the server wants a token and AGENT_MEMORY_TOKEN is not set" in text
    assert "unhealthy" in error


def test_doctor_says_when_the_server_has_no_door(settings, live_memory):
    text, error = doctor(settings, url=live_memory.base_url, token=None, source=None)
    assert error == ""
    assert "✔ auth: no token; the server accepts requests without one" in text


def wait_for(url: str, process: subprocess.Popen, *, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "scripts/run exited early"
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


def test_make_run_hands_one_token_to_both_processes(tmp_path):
    project = project_copy(tmp_path)
    memory_url = f"http://127.0.0.1:{free_port()}"
    shop_port = free_port()
    env = run_env(memory_url, shop_port)
    log = (tmp_path / "run.log").open("w")
    run = subprocess.Popen(
        ["scripts/run"],
        cwd=project,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for(f"http://127.0.0.1:{shop_port}/healthz", run)
        token_file = project / "var" / "agent-memory.token"
        token = token_file_read(token_file)
        assert token and mode(token_file) == 0o600
        # The server's door is shut to a caller without the token and open with it.
        assert httpx.get(f"{memory_url}/users/probe").status_code == 401
        opened = httpx.get(
            f"{memory_url}/users/probe", headers={"Authorization": f"Bearer {token}"}
        )
        assert opened.status_code == 404
        # The shop got it: its health check reaches memory, and a later manage.py command
        # finds both the URL (kept in .env) and the token (read from var/).
        assert httpx.get(f"http://127.0.0.1:{shop_port}/healthz").json()["memory"] == "ok"
        assert (project / ".env").read_text().strip() == f"AGENT_MEMORY_URL={memory_url}"
        later = {
            k: v for k, v in env.items() if k not in {"AGENT_MEMORY_URL", "AGENT_MEMORY_TOKEN"}
        }
        doctor_run = subprocess.run(
            [sys.executable, "manage.py", "memory_doctor", "--skip-round-trip"],
            cwd=project,
            env=later,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert doctor_run.returncode == 0, doctor_run.stdout + doctor_run.stderr
        assert f"AGENT_MEMORY_URL               {memory_url}" in doctor_run.stdout
        assert "✔ auth: token accepted; requests without it are refused" in doctor_run.stdout
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(timeout=20)
        log.close()
    # Ctrl-C (here SIGTERM) stops both processes.
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{memory_url}/health", timeout=1)
