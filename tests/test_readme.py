"""The README's commands still run, and the output it shows is what they print today."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", text, flags=re.S | re.M)


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")


def test_the_readme_stays_small() -> None:
    assert len(README.encode()) < 15 * 1024, "the README holds the essentials; the rest goes to docs/"


def test_the_first_command_prints_what_the_readme_shows(tmp_path: Path) -> None:
    install, rest = _blocks(README, "sh")[0].split(" && pip install . && ", 1)
    assert install == "python3 -m venv .venv && . .venv/bin/activate", "the command installs the checkout first"
    shown = [block for block in _blocks(README, "") if "hookSpecificOutput" in block][0]
    # The installed console script stands in for `pip install .` into a fresh virtualenv.
    done = subprocess.run(["bash", "-c", rest], cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown


def test_the_second_command_installs_the_test_extras() -> None:
    command = _blocks(README, "sh")[1].strip()
    assert command.endswith("pip install -e '.[test]' && python -m pytest")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert "pytest" in " ".join(extras["test"])


def _named_commands() -> list[str]:
    named = set(re.findall(r"`(loopguard-hook [a-z][a-z -]*?)[ `\[]", README))
    # the Commands table: "| `status [--session ID] …` | …", "| `install` / `uninstall --client …` | …"
    section = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
    for row in re.findall(r"^\| (.*?) \|", section, flags=re.M):
        for word in re.findall(r"`([a-z]+)", row.replace("`loopguard-hook`", "")):
            named.add(f"loopguard-hook {word}")
    return sorted(named)


@pytest.mark.parametrize("command", _named_commands())
def test_every_command_the_readme_names_exists(command: str, tmp_path: Path) -> None:
    words = command.split()[1:2]
    if words == ["config"]:
        words = command.split()[1:3]
    exe = shutil.which("loopguard-hook", path=str(BIN))
    assert exe is not None
    done = subprocess.run([exe, *words, "--help"], env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (command, done.stderr)


def test_every_link_points_at_a_file() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if "://" in target:
            continue
        assert (ROOT / target).exists(), target
    for page in (ROOT / "docs").rglob("*.md"):
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (page.parent / target).exists(), (page, target)


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_anchor_names_a_heading_of_its_page() -> None:
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        text = page.read_text(encoding="utf-8")
        headings = {_slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
        for anchor in re.findall(r"\]\(#([^)]+)\)", text):
            assert anchor in headings, (page, anchor)


def test_the_example_exclude_lists_keep_every_hosts_todo_tool() -> None:
    """`exclude` replaces the default list: an example a user copies must keep every host's todo
    tool out of the counts (Gemini CLI's `write_todos` included), as the default does."""
    from loopguard_hook.config.settings import TODO_TOOLS

    for name, text in (("README.md", README), ("docs/configuration.md", (ROOT / "docs/configuration.md").read_text())):
        [block] = [b for b in _blocks(text, "toml") if "exclude" in b]
        exclude = tomllib.loads(block)["exclude"]
        assert set(TODO_TOOLS) <= set(exclude), (name, set(TODO_TOOLS) - set(exclude))


def test_the_readme_says_which_python_and_how_long_the_tests_take() -> None:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11" and "Python 3.11 or later" in README
    assert re.search(r"about \d+-\d+ minutes on 2 cores", README)
