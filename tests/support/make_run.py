"""What the tests of `make run` share: a copy of the project and the environment to run it in."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def project_copy(tmp_path: Path) -> Path:
    """The project without its local state, so a run writes only under tmp_path."""
    target = tmp_path / "aisle"
    shutil.copytree(
        ROOT,
        target,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "var",
            "test-artifacts",
            "__pycache__",
            ".*_cache",
            ".env",
            "node_modules",
            "mutants",
        ),
    )
    return target


def run_env(memory_url: str, shop_port: int) -> dict[str, str]:
    """scripts/run's environment: a fresh memory server at memory_url, no token given."""
    env = {
        **os.environ,
        "PY": sys.executable,
        "PORT": str(shop_port),
        "AGENT_MEMORY_URL": memory_url,
        "AGENT_MEMORY_EMBEDDER": "hashing",
        "AGENT_MEMORY_EXTRACTOR": "extractive",
        "AGENT_MEMORY_TOKEN": "",
        "AGENT_MEMORY_SERVER_TOKEN": "",
    }
    for name in ("AISLE_VAR_DIR", "DJANGO_SETTINGS_MODULE", "DATABASE_URL", "TEST_DATABASE_URL"):
        env.pop(name, None)
    return env
