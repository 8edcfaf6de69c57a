"""Dependencies run one way (config -> apps; assistant -> shop, memoryapp, llm; memoryapp -> llm)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {"config", "shop", "assistant", "memoryapp", "llm"}

ALLOWED = {
    "shop": set(),
    "llm": set(),
    "memoryapp": {"llm"},
    "memoryapp/server": {"llm"},
    "assistant": {"shop", "memoryapp", "llm"},
}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] in PROJECT:
                found.add("memoryapp/server" if parts[:2] == ["memoryapp", "server"] else parts[0])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_the_design_allows(package):
    own = {package}
    folder = ROOT / package
    offenders = {}
    for path in folder.rglob("*.py"):
        if package == "memoryapp" and "server" in path.relative_to(folder).parts:
            continue
        if "migrations" in path.parts:
            continue
        extra = imported_packages(path) - own - ALLOWED[package]
        if path.name == "agentmemory.py" and "commands" in path.parts:
            # The command that starts the embedded server is its entry point, not policy code.
            extra -= {"memoryapp/server"}
        if extra:
            offenders[str(path.relative_to(ROOT))] = sorted(extra)
    assert offenders == {}
