"""The server package's own import graph: no cycle, dependencies one way, no hidden imports.

Built from the source with `ast`, counting imports at module level and inside functions
alike, and the parent packages every import runs first. A cycle hidden behind an import
inside a function is still a cycle.
"""

from __future__ import annotations

import ast
import graphlib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "memoryserver"

# The only imports of the package's own modules allowed inside a function, and why.
FUNCTION_LEVEL_ALLOWED = {
    # Django refuses model imports until it is set up, which build_application does.
    ("memoryserver.__main__", "memoryserver.worker"),
    ("memoryserver.loader", "memoryserver.selectors"),
}

# Higher layers first: a module may import its own layer or lower ones, never higher.
# Modules in none of them (models, payloads, clock, errors, embedders, ...) are the base.
LAYERS = [
    ("entry points", ("memoryserver.__main__", "memoryserver.asgi", "memoryserver.loader")),
    ("api", ("memoryserver.api",)),
    ("worker", ("memoryserver.worker",)),
    ("services", ("memoryserver.services",)),
    ("queue", ("memoryserver.queue",)),
    ("selectors", ("memoryserver.selectors",)),
    ("index", ("memoryserver.index",)),
]


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    in_function: bool
    line: int


def package_modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / PACKAGE).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _absolute(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _named_modules(importer: str, is_package: bool, node: ast.AST, known: set[str]) -> set[str]:
    """The package's modules an import statement names (`from a import b` may name a.b)."""
    if isinstance(node, ast.Import):
        candidates = [alias.name for alias in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        module = _absolute(importer, is_package, node)
        candidates = [module, *(f"{module}.{alias.name}" for alias in node.names)]
    named = set()
    for name in candidates:
        # `import a.b.c` runs a, a.b and a.b.c: keep the deepest module the name reaches.
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            named.add(name)
    return named


def package_imports() -> list[Edge]:
    modules = package_modules()
    known = set(modules)
    edges = []
    for importer, path in modules.items():
        is_package = path.name == "__init__.py"

        def visit(node: ast.AST, in_function: bool, importer=importer, is_package=is_package):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import | ast.ImportFrom):
                    for name in _named_modules(importer, is_package, child, known):
                        edges.append(Edge(importer, name, in_function, child.lineno))
                visit(
                    child,
                    in_function
                    or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda),
                )

        visit(ast.parse(path.read_text()), False)
    return edges


def import_graph() -> dict[str, set[str]]:
    """Each module and the modules importing it runs, parent packages included."""
    graph: dict[str, set[str]] = {name: set() for name in package_modules()}
    for edge in package_imports():
        name = edge.imported
        while name:
            if name != edge.importer:
                graph[edge.importer].add(name)
            name = name.rpartition(".")[0]
    return graph


def layer_of(module: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return len(LAYERS)


def test_the_graph_is_read_from_the_source():
    graph = import_graph()
    # Guards the parser itself: known edges of each kind must be found.
    assert "memoryserver.services.extraction" in graph["memoryserver.worker"]
    assert "memoryserver.selectors" in graph["memoryserver.services.blocks"]
    assert "memoryserver.index.slot" in graph["memoryserver.index.registry"]
    assert "memoryserver.api" in graph["memoryserver.api.urls"]  # a parent package
    function_level = {(e.importer, e.imported) for e in package_imports() if e.in_function}
    assert ("memoryserver.__main__", "memoryserver.worker") in function_level


def test_the_server_package_has_no_import_cycle():
    try:
        graphlib.TopologicalSorter(import_graph()).prepare()
    except graphlib.CycleError as exc:
        # graphlib lists each node before the modules that import it.
        pytest.fail(f"import cycle: {' imports '.join(reversed(exc.args[1]))}")


def test_no_module_imports_the_package_inside_a_function_except_where_documented():
    hidden = sorted(
        f"{e.importer}:{e.line} imports {e.imported}"
        for e in package_imports()
        if e.in_function and (e.importer, e.imported) not in FUNCTION_LEVEL_ALLOWED
    )
    assert hidden == []


def test_dependencies_point_down_the_layers():
    upward = sorted(
        f"{importer} imports {imported}"
        for importer, imported_set in import_graph().items()
        for imported in imported_set
        if layer_of(imported) < layer_of(importer)
    )
    assert upward == []
