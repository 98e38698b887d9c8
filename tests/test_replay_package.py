"""The replay package's shape: one reader per recording format listed by hand, small modules,
no import circle, and the public names importable from `loopguard_hook.replay`."""

from __future__ import annotations

import ast
from pathlib import Path

from loopguard_hook import replay
from loopguard_hook.replay import readers
from loopguard_hook.replay.jsonl import Line

PACKAGE = Path(replay.__file__).parent


def _local_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
    return names


def test_every_format_has_one_reader_in_the_list() -> None:
    assert [r.format for r in readers.READERS if r.format in set(replay.Format)] == list(replay.Format)
    titles = ["Claude Code transcript", "Codex rollout", "DSH session log", "hook payload log"]
    assert [r.title for r in readers.READERS] == titles
    assert [r.transcript for r in readers.READERS] == [True, True, True, False]


def test_a_hook_payload_line_is_a_payload_whatever_else_it_holds() -> None:
    both = {"type": "user", "sessionId": "s", "hook_event_name": "Stop"}
    assert replay.sniff([Line(1, both)]) is replay.Format.HOOK_PAYLOADS
    assert replay.sniff([Line(1, {"type": "user", "sessionId": "s"})]) is replay.Format.CLAUDE_TRANSCRIPT
    assert replay.sniff([Line(1, {"type": "function_call"})]) is replay.Format.CODEX_ROLLOUT
    assert replay.sniff([Line(1, {"type": "nothing"})]) is None


def test_modules_import_no_circle() -> None:
    """The package's shape is guarded by what imports what, not by a count of lines."""
    graph = {p.stem: _local_imports(p) for p in PACKAGE.glob("*.py")}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path, name))
        if name not in done:
            for dep in graph.get(name, ()):
                visit(dep, (*path, name))
            done.add(name)

    for name in graph:
        visit(name, ())


def test_public_names_are_importable_from_the_package() -> None:
    for name in replay.__all__:
        assert getattr(replay, name) is not None, name
    assert callable(replay.replay) and callable(replay.render)


def test_no_function_is_over_sixty_lines() -> None:
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                assert length <= 60, f"{path.name}: {node.name} is {length} lines"
