"""`doctor`'s place in the package: its own modules, small, imported only by the CLI."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import loopguard_hook
import loopguard_hook.doctor as doctor

PACKAGE = Path(loopguard_hook.__file__).parent
MODULES = sorted(Path(doctor.__file__).parent.glob("*.py"))


def test_modules_and_functions_are_small() -> None:
    for path in MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.end_lineno is not None:
                assert node.end_lineno - node.lineno + 1 <= 60, f"{path.name}:{node.name}"


def test_only_the_cli_imports_doctor() -> None:
    importers = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "doctor":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("doctor") or (
                isinstance(node, ast.ImportFrom) and any(a.name == "doctor" for a in node.names)
            ):
                importers.append(path.name)
    assert importers == ["cli.py"]


def test_the_hook_path_does_not_load_doctor() -> None:
    code = (
        "import sys, io\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'{}'))\n"
        "from loopguard_hook.entry import main\n"
        "main(['--dry-run'])\n"
        "print(any(m.startswith('loopguard_hook.doctor') for m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().splitlines()[-1] == "False", proc.stderr
