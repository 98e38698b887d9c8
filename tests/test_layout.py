"""The package's layout: the layers it is made of, and the import graph that keeps them apart.

- the layers are folders (`hosts/`, `core/`, `rules/`, `store/`, `config/`, `commands/`…) and at
  most a handful of modules stay at the top (the entry point, the hook, click's commands);
- `core/` and `rules/` are pure: they import no IO module, call no `open`, and import nothing of
  an outer layer (hosts, the store, the commands, the fast path, install, doctor, replay, the
  hook, the entry point, click);
- no import circle anywhere: every import of a package module (at the top or inside a function,
  so a lazy import counts too; a package's `__init__` too) is an edge, and the graph has no cycle.

Functions and modules are kept short by judgment, not by a cap.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "loopguard_hook"

#: The folders the layers live in.
LAYERS = ("hosts", "core", "rules", "store", "config", "commands", "fastpath", "install", "doctor", "replay")
#: The modules at the top: `__init__`, `__main__`, the console entry, the hook, click's commands.
MAX_TOP_LEVEL_MODULES = 6
#: What the pure layers may not import: the modules that do IO, and the outer layers.
IO_MODULES = frozenset({
    "os", "io", "pathlib", "socket", "fcntl", "subprocess", "shutil", "tempfile", "time", "sys", "select",
    "signal", "mmap", "glob", "platformdirs", "click", "importlib", "logging", "threading", "asyncio", "urllib",
})
OUTER_LAYERS = tuple(
    f"loopguard_hook.{name}"
    for name in ("hosts", "store", "commands", "fastpath", "install", "doctor", "replay", "hook", "entry", "cli", "config.load")
)
PURE_LAYERS = ("core", "rules")


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    parts = ["loopguard_hook", *path.relative_to(PACKAGE).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_the_package_has_the_modules_it_is_measured_on() -> None:
    names = {_name(p) for p in _modules()}
    assert {"loopguard_hook.core.engine", "loopguard_hook.hosts.codex", "loopguard_hook.rules.repeat"} <= names


def test_the_layers_are_folders() -> None:
    assert all((PACKAGE / layer / "__init__.py").is_file() for layer in LAYERS)


def test_at_most_a_handful_of_modules_stay_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def _pure_modules() -> list[Path]:
    return [p for p in _modules() if p.relative_to(PACKAGE).parts[0] in PURE_LAYERS]


@pytest.mark.parametrize("path", _pure_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_and_rules_do_no_io(path: Path) -> None:
    """No IO module imported, at the top or inside a function, and no file opened or printed."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in IO_MODULES]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found += [node.module] if node.module.split(".")[0] in IO_MODULES else []
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("open", "print", "input"):
            found.append(f"{node.func.id}()")
    assert found == []


@pytest.mark.parametrize("path", _pure_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_and_rules_import_no_outer_layer(path: Path) -> None:
    outer = sorted(m for m in _graph()[_name(path)] if m.startswith(OUTER_LAYERS))
    assert outer == []


def test_the_layer_check_sees_an_outer_import() -> None:
    """The check above can fail: the hook imports outer layers, and the host layer the core."""
    graph = _graph()
    assert any(m.startswith("loopguard_hook.core") for m in graph["loopguard_hook.hosts.claude_code"])
    assert any(m.startswith(OUTER_LAYERS) for m in graph["loopguard_hook.hook"])


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package modules that importing `path` runs, from imports anywhere in it.

    `from . import x` names the module `x`; importing `a.b.c` runs `a.b` too, except the
    packages `path` is itself inside (they are imported before it).
    """
    own = _name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                module = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            submodules = {f"{module}.{a.name}" for a in node.names} & modules
            targets.update(submodules or {module})
    ancestors = {own.rsplit(".", n)[0] for n in range(1, own.count(".") + 1)}
    found = set()
    for target in targets:
        parts = target.split(".")
        found.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return {m for m in found if m in modules and m != own and m not in ancestors}


def _graph() -> dict[str, set[str]]:
    paths = {_name(p): p for p in _modules()}
    return {name: _imports(path, set(paths)) for name, path in paths.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle, as the list of modules along it, or [] when there is none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_import_graph_has_no_cycle() -> None:
    assert _cycle(_graph()) == []


def test_the_import_graph_sees_lazy_and_relative_imports() -> None:
    graph = _graph()
    assert "loopguard_hook.hosts.transcript" in graph["loopguard_hook.hook"]  # imported inside a function
    assert "loopguard_hook.hosts.codex" in graph["loopguard_hook.hosts"]  # `from . import codex`
    assert "loopguard_hook.hosts" in graph["loopguard_hook.hook"]
    assert "loopguard_hook.core.signature" in graph["loopguard_hook.core.outcome"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []


#: Modules the hook path never imports (click, the operator commands and their helpers).
NOT_ON_THE_HOOK_PATH = (
    "loopguard_hook.cli",
    "loopguard_hook.install",
    "loopguard_hook.replay",
    "loopguard_hook.doctor",
    "loopguard_hook.commands.stats",
    "loopguard_hook.commands.log",
    "loopguard_hook.commands.times",
    "loopguard_hook.__main__",
)


def test_hook_path_modules_stay_cheap_to_import() -> None:
    """What `test_imports.test_hook_path_defines_no_dataclasses` pins for the original modules,
    for every module of the package that the hook path may import, the new ones included: no
    dataclass, no regular expression compiled at import, and no postponed annotations in a
    module that defines a NamedTuple."""
    import dataclasses
    import importlib
    import re

    names = [n for n in _graph() if not n.startswith(NOT_ON_THE_HOOK_PATH)]
    assert "loopguard_hook.core.ledger" in names and "loopguard_hook.rules.text_loops" in names
    for name in names:
        module = importlib.import_module(name)
        own = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
        assert not [c.__name__ for c in own if dataclasses.is_dataclass(c)], name
        assert not [k for k, v in vars(module).items() if isinstance(v, re.Pattern)], name
        if any(issubclass(c, tuple) and hasattr(c, "_fields") for c in own):
            assert "annotations" not in vars(module), f"{name} uses postponed annotations"


#: The modules that read and write the ledger.
LEDGER_MODULES = ("core/engine.py", "core/progress.py", "core/policy.py", "core/followup.py", "core/ledger.py",
                  "core/verdict.py", "rules")
#: Parameters that hold payload values (the client's JSON), not ledger values.
PAYLOAD_NAMES = frozenset({"tool_input", "response", "tool_response"})


def _annotations(tree: ast.AST) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            found += [(a.arg, ast.unparse(a.annotation)) for a in args if a.annotation is not None]
            if node.returns is not None:
                found.append((f"{node.name} ->", ast.unparse(node.returns)))
        elif isinstance(node, ast.AnnAssign):
            found.append((ast.unparse(node.target), ast.unparse(node.annotation)))
    return found


def test_the_ledger_is_read_and_written_through_typed_fields() -> None:
    """No `Any` (so no `dict[str, Any]`) in an annotation of the modules that handle the ledger,
    except for payload values: every ledger value has its type in `ledger.py`, and mypy checks
    each key (`mypy loopguard_hook` is strict)."""
    paths = [p for p in _modules() if p.relative_to(PACKAGE).as_posix().startswith(LEDGER_MODULES)]
    assert len(paths) >= 12
    untyped = []
    for path in paths:
        for name, annotation in _annotations(ast.parse(path.read_text(encoding="utf-8"))):
            if "Any" in annotation and name not in PAYLOAD_NAMES:
                untyped.append(f"{path.relative_to(PACKAGE)}: {name}: {annotation}")
    assert untyped == []


def test_every_rule_has_its_test_module() -> None:
    rules = {p.stem for p in (PACKAGE / "rules").glob("*.py")} - {"__init__", "base"}
    tests = {p.stem.removeprefix("test_") for p in (PACKAGE.parent / "tests" / "rules").glob("test_*.py")}
    assert rules and rules <= tests, sorted(rules - tests)
