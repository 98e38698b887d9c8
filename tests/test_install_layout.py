"""The `install` package's shape: small modules, short functions, no import circle, and the old
single-module names still importable from `loopguard_hook.install`."""

from __future__ import annotations

import ast
from pathlib import Path

import loopguard_hook.install as install

PACKAGE = Path(install.__file__).parent
MODULES = sorted(PACKAGE.glob("*.py"))


def test_every_module_is_under_400_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES}
    assert {name: n for name, n in sizes.items() if n > 400} == {}


def test_every_function_is_under_60_lines() -> None:
    long = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.end_lineno is not None and node.end_lineno - node.lineno + 1 > 60:
                    long.append(f"{path.name}:{node.name}")
    assert long == []


def _local_imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                deps.add(node.module.split(".")[0])
        graph[path.stem] = deps
    return graph


def test_no_import_circle() -> None:
    graph = _local_imports()
    done: set[str] = set()

    def visit(name: str, trail: tuple[str, ...]) -> None:
        assert name not in trail, " -> ".join((*trail, name))
        if name in done:
            return
        for dep in graph.get(name, ()):
            visit(dep, (*trail, name))
        done.add(name)

    for name in graph:
        visit(name, ())


def test_only_the_package_front_imports_everything() -> None:
    """No module below the front (`__init__`) imports it back: a circle through the package."""
    for path in MODULES:
        if path.stem in ("__init__",):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module is not None, f"{path.name} imports the package front"


def test_public_names_stay_importable() -> None:
    for name in install.__all__:
        assert hasattr(install, name), name
