"""Dependencies run one way (design section 3).

config -> apps; assistant -> shop, memoryapp, llm; memoryapp -> llm; the embedded server
(`memoryserver`) -> llm only; llm and shop import nothing of the project. The server is a
separate program: no app imports it, and it imports no app.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {"config", "shop", "assistant", "memoryapp", "llm", "memoryserver"}

ALLOWED = {
    "shop": set(),
    "llm": set(),
    "memoryapp": {"llm"},
    "memoryserver": {"llm"},
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
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in PROJECT)
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_the_design_allows(package):
    offenders = {}
    for path in (ROOT / package).rglob("*.py"):
        if "migrations" in path.parts:
            continue
        extra = imported_packages(path) - {package} - ALLOWED[package]
        if extra:
            offenders[str(path.relative_to(ROOT))] = sorted(extra)
    assert offenders == {}


def test_only_the_test_settings_know_the_embedded_server():
    """The shop's own settings carry none of the server's database, router or knobs."""
    for name in ("base.py", "production.py"):
        path = ROOT / "config" / "settings" / name
        if path.exists():
            text = path.read_text()
            assert "memoryserver" not in text and "AGENT_MEMORY_SERVER" not in text, name


def imported_names(path: Path, package: str) -> dict[str, set[str]]:
    """module -> the names `path` imports from it, for the modules of `package`."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == package:
                found.setdefault(node.module, set()).update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == package:
                    found.setdefault(alias.name, set()).add("*")
    return found


# What a turn's pipeline may hold of memory: the handle and the values it takes and hands
# back, and the shopper's face for what a visit needs outside its turns (the greeting).
TURN_HANDLE_NAMES = {"TurnMemory", "Exchange", "Recall", "MemoryUnavailable"}
SHOPPER_FACE_NAMES = {"ShopperMemory"}
# How many names of memory the assistant as a whole may use: a new need is a method of the
# handle or data on what it returns, not one more function of memory's to know.
ASSISTANT_MEMORY_NAMES_MAX = 12


def test_the_turn_pipeline_reaches_memory_only_through_the_turn_handle():
    """The pipeline holds one handle per turn; how memory sequences its calls is its own.
    Outside a turn it asks the shopper's face, never the turn handle's class."""
    from memoryapp import public, turn

    assert set(turn.__all__) >= TURN_HANDLE_NAMES
    assert set(public.__all__) >= SHOPPER_FACE_NAMES
    imported = imported_names(ROOT / "assistant" / "turn" / "pipeline.py", "memoryapp")
    assert set(imported) <= {"memoryapp.turn", "memoryapp.public"}
    assert imported["memoryapp.turn"] <= TURN_HANDLE_NAMES
    assert imported.get("memoryapp.public", set()) <= SHOPPER_FACE_NAMES


def test_the_turn_handle_serves_the_turn_only():
    """A visit's greeting, close and erase are the shopper's face's, not class-level calls
    of the turn handle: every public method of `TurnMemory` but `open` needs an open turn."""
    import inspect

    from memoryapp.turn import TurnMemory

    class_level = {
        name
        for name, value in vars(TurnMemory).items()
        if isinstance(value, staticmethod | classmethod) and not name.startswith("_")
    }
    assert class_level == {"open"}, class_level
    assert inspect.ismethod(TurnMemory.open)


def test_the_shop_reaches_memory_only_through_its_public_module():
    """config and shop use memory's public names, never its clients or policy modules."""
    offenders = {}
    for package in ("config", "shop"):
        for path in (ROOT / package).rglob("*.py"):
            modules = set(imported_names(path, "memoryapp")) - {"memoryapp.public"}
            if modules:
                offenders[str(path.relative_to(ROOT))] = sorted(modules)
    assert offenders == {}


def assistant_memory_names() -> dict[str, set[str]]:
    """name of memory -> the assistant's modules that import it."""
    used: dict[str, set[str]] = {}
    for path in (ROOT / "assistant").rglob("*.py"):
        for module, names in imported_names(path, "memoryapp").items():
            for name in names:
                used.setdefault(f"{module}:{name}", set()).add(str(path.relative_to(ROOT)))
    return used


def test_the_assistant_reaches_memory_only_through_its_public_names():
    from memoryapp import public, turn

    assert set(turn.__all__) <= set(public.__all__)
    allowed = {f"memoryapp.public:{name}" for name in public.__all__}
    allowed |= {f"memoryapp.turn:{name}" for name in turn.__all__}
    offenders = {name: sorted(paths) for name, paths in assistant_memory_names().items()}
    assert {name: paths for name, paths in offenders.items() if name not in allowed} == {}


def test_the_assistant_uses_at_most_a_dozen_names_of_memory():
    """One handle and a few values, not memory's internals: each name is counted once,
    whichever of `memoryapp.public` and `memoryapp.turn` it is taken from."""
    names = {name.split(":")[1] for name in assistant_memory_names()}
    assert len(names) <= ASSISTANT_MEMORY_NAMES_MAX, sorted(names)


MODULE_LINES_MAX = 600
MODULE_LINES_LONG = 450
LONG_MODULES_MAX = 3
# Being cut into packages by role; until then it is exempt from both bounds.
MODULE_LINES_EXEMPT = {"llm/offline/assistant.py"}


def test_no_app_module_grows_past_its_bounds():
    """A module over 600 lines is cut by noun; few pass 450, so each is one job to read."""
    long: dict[str, int] = {}
    for package in sorted(PROJECT):
        for path in (ROOT / package).rglob("*.py"):
            name = str(path.relative_to(ROOT))
            if "migrations" in path.parts or name in MODULE_LINES_EXEMPT:
                continue
            lines = len(path.read_text().splitlines())
            assert lines <= MODULE_LINES_MAX, f"{name} has {lines} lines"
            if lines > MODULE_LINES_LONG:
                long[name] = lines
    assert len(long) <= LONG_MODULES_MAX, long


def test_the_offline_judge_is_a_package_of_short_modules_by_what_it_reads():
    judge = ROOT / "llm" / "offline" / "judge"
    assert not (ROOT / "llm" / "offline" / "judge.py").exists()
    lengths = {path.name: len(path.read_text().splitlines()) for path in judge.glob("*.py")}
    assert {"clauses.py", "preferences.py", "sizes.py", "budget.py", "occasion.py"} <= set(lengths)
    assert max(lengths.values()) <= MODULE_LINES_LONG, lengths


def test_the_memory_modes_are_named_once_and_each_is_explained_to_the_model():
    from assistant.protocol import events
    from llm import modes, transcript

    assert events.MODES is modes.MODES
    assert set(transcript.MEMORY_MODES) == set(modes.MODES)


# Test folders that are not an app's: each tests one concern across the apps.
TEST_FOLDERS_ACROSS_APPS = {
    "admin": "the staff's admin screens, over every app's models",
    "browser": "the panel and pages in chromium, over the whole stack",
    "commands": "the management commands, run as staff run them, whichever app holds them",
    "fault": "the memory server killed, slowed or starved under the shop",
    "multiprocess": "daphne processes sharing Redis or PostgreSQL",
    "security": "doors, origins, tokens and private files, across the apps",
    "support": "the helpers the tests share",
}
# Files a test folder may hold besides tests, conftest.py and __init__.py.
TEST_FOLDER_EXTRAS = {"browser/screenshots.py": "make screenshots, run by path with pytest"}


def test_the_tests_mirror_the_packages_with_helpers_in_support_and_fixtures_in_conftest():
    """A folder of tests/ is named for the app it tests or for a concern across the apps;
    helpers live in tests/support/; a conftest.py declares fixtures and pytest hooks only."""
    tests = ROOT / "tests"
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"}
    folders = {path.parent for path in tests.rglob("*.py") if "__pycache__" not in path.parts}
    misnamed = sorted(
        folder.name
        for folder in folders
        if folder != tests
        and folder.parent == tests
        and folder.name not in packages | set(TEST_FOLDERS_ACROSS_APPS)
    )
    assert misnamed == [], f"test folders named for no app: {misnamed}"

    helpers = sorted(
        str(path.relative_to(tests))
        for path in tests.rglob("*.py")
        if path.parent != tests / "support"
        and "__pycache__" not in path.parts
        and not path.name.startswith("test_")
        and path.name not in ("conftest.py", "__init__.py")
        and str(path.relative_to(tests)) not in TEST_FOLDER_EXTRAS
    )
    assert helpers == [], f"helpers outside tests/support/: {helpers}"

    def is_fixture(decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return ast.unparse(target) == "pytest.fixture"

    declared = {}
    for conftest in tests.rglob("conftest.py"):
        for node in ast.parse(conftest.read_text()).body:
            if isinstance(node, ast.ClassDef) or (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and not node.name.startswith("pytest_")
                and not any(is_fixture(d) for d in node.decorator_list)
            ):
                declared.setdefault(str(conftest.relative_to(tests)), []).append(node.name)
    assert declared == {}, f"conftest.py files declaring more than fixtures: {declared}"


BENCHMARK_LONG_MODULES_MAX = 1


def python_modules(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*.py") if "__pycache__" not in path.parts)


def imports_root(path: Path, root: str) -> bool:
    """Whether `path` imports `root` or a module of it, anywhere in the file."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        if any(name.split(".")[0] == root for name in names):
            return True
    return False


def touches_sys_path(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "sys"
            and any(alias.name == "path" for alias in node.names)
        ):
            return True
    return False


def runs_as_main(path: Path) -> bool:
    return any(
        isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'"
        for node in ast.parse(path.read_text()).body
    )


def test_the_benchmarks_are_held_like_the_apps():
    """The rules every benchmark keeps, a new one included:

    - A module directly in `benchmarks/` is a benchmark, run from the project's root as
      `python -m benchmarks.<name>` (`make bench` runs every one so): it ends in an
      `if __name__ == "__main__":` block.
    - Its parts live in a package of its own (`benchmarks/recall/`, `benchmarks/memory_server/`),
      what several benchmarks share in `benchmarks/support/`; long data tables in a module
      of their own. No module is over 600 lines, and at most one is over 450.
    - Nothing in `benchmarks/` touches `sys.path`: the package is imported from the root.
    - Nothing in `benchmarks/` imports `tests`: what both use (the memory server and daphne
      started as processes, the scripted model endpoint, shopper-like texts, free ports) is
      in `harness/`, which imports neither `tests` nor `benchmarks`.
    """
    benchmarks = ROOT / "benchmarks"
    broken: dict[str, list[str]] = {}

    def rule(path: Path, what: str) -> None:
        broken.setdefault(str(path.relative_to(ROOT)), []).append(what)

    long: dict[str, int] = {}
    for path in python_modules(benchmarks):
        lines = len(path.read_text().splitlines())
        if lines > MODULE_LINES_MAX:
            rule(path, f"{lines} lines, over {MODULE_LINES_MAX}")
        elif lines > MODULE_LINES_LONG:
            long[str(path.relative_to(ROOT))] = lines
        if touches_sys_path(path):
            rule(path, "touches sys.path")
        if imports_root(path, "tests"):
            rule(path, "imports tests")
        if path.parent == benchmarks and path.name != "__init__.py" and not runs_as_main(path):
            rule(path, "a benchmark with no `if __name__ == '__main__':` block")
    for path in python_modules(ROOT / "harness"):
        for root in ("tests", "benchmarks"):
            if imports_root(path, root):
                rule(path, f"imports {root}")
    assert broken == {}, broken
    assert len(long) <= BENCHMARK_LONG_MODULES_MAX, f"benchmark modules over 450 lines: {long}"


# Django finds these by name; every other module of the app is loose unless a package holds it.
DJANGO_MODULES = {"__init__.py", "admin.py", "apps.py", "models.py", "signals.py"}
ASSISTANT_LOOSE_MODULES_MAX = 8


def test_the_assistant_keeps_its_rooms():
    """At its root the assistant holds its doors (the consumer, the REST API) beside Django's
    own files; the turn, the protocol and the records are packages of their own, so a new
    module goes into the room whose job it is rather than beside the doors."""
    assistant = ROOT / "assistant"
    loose = sorted(path.name for path in assistant.glob("*.py") if path.name not in DJANGO_MODULES)
    assert len(loose) <= ASSISTANT_LOOSE_MODULES_MAX, loose
    for room in ("turn", "protocol", "records"):
        assert (assistant / room / "__init__.py").is_file(), room


CYCLE_PACKAGES = ("config", "shop", "assistant", "memoryapp", "llm", "memoryserver")
CYCLE_PACKAGES += ("benchmarks", "harness")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the project's modules it imports, wherever the import stands: at the top,
    inside a function (a deferred import is still a dependency) or under TYPE_CHECKING."""
    paths = {
        _module_name(path): path
        for package in CYCLE_PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    }

    def known(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges.update(filter(None, (known(alias.name) for alias in node.names)))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*parent, *([node.module] if node.module else [])])
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    target = full if full in paths else known(base)
                    if target:
                        edges.add(target)
        edges.discard(module)
        graph[module] = edges
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_no_module_of_the_project_imports_itself_round_a_cycle():
    """A cycle means two modules that cannot be read, tested or moved apart; one hidden in a
    function or under TYPE_CHECKING is a cycle all the same."""
    assert import_cycles(import_graph()) == []
