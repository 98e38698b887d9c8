"""Tool classification by the configured name lists: tracked, read-like, mutation, paths. Pure."""

import re
from typing import Any

from ..config.settings import Config
from .standin import is_stand_in


def matches(name: str, patterns: tuple[str, ...]) -> bool:
    """True when `name` matches one pattern; `*` is the only wildcard (any run of characters).

    Patterns come from config files, a project's too: matching takes time linear in the name
    for each literal piece, never the exponential backtracking of `*a*a*a…` as a regex.
    """
    for pattern in patterns:
        if "*" not in pattern:
            if name == pattern:
                return True
        elif _wildcard(name, pattern.split("*")):
            return True
    return False


def _wildcard(name: str, pieces: list[str]) -> bool:
    """`pieces` of a pattern split at `*` (at least two): the first must start `name`, the last
    end it, the middle ones appear in order between, each as early as possible."""
    first, last = pieces[0], pieces[-1]
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    at, end = len(first), len(name) - len(last)
    for piece in pieces[1:-1]:
        found = name.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def is_tracked(tool: str, config: Config) -> bool:
    """Tracked by the repeat counters: in `include` (empty = all) and not in `exclude`."""
    if config.include and not matches(tool, config.include):
        return False
    return not matches(tool, config.exclude)


def is_read_tool(tool: str, config: Config) -> bool:
    """A read-like tool for the same-path cap (breaker profile: names, or any name containing "read")."""
    return matches(tool, config.read_tools) or (config.match_read_by_substring and "read" in tool.lower())


def path_of(tool_input: Any, config: Config) -> str | None:
    """The path a read-like call targets, found through `path_keys`."""
    if isinstance(tool_input, dict):
        for key in config.path_keys:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value
    return None


_PATCH_PATH = r"^\*\*\* (?:Add|Update|Delete) File: (.+)$"


def target_of(tool_input: Any, config: Config) -> str | None:
    """The file a call works on, by its last two path components (`ui/vite.config.ts`: the
    same file named absolutely or from the project root; `packages/a/package.json` and
    `packages/b/package.json` are two files): the path a file tool names
    (`path_keys`), or the first file of a patch (`*** Update File: …`, Codex's `apply_patch`,
    also run through its shell as `apply_patch <<'EOF'`). None when the call names no file."""
    path = path_of(tool_input, config)
    if path is None and isinstance(tool_input, dict):
        command = tool_input.get("command")
        if isinstance(command, str) and "*** " in command:
            found = re.search(_PATCH_PATH, command, re.M)
            path = found.group(1).strip() if found else None
    if not path:
        return None
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts[-2:]) or path


def mutated_paths(tool: str, tool_input: Any, config: Config) -> list[str] | None:
    """Paths a mutation touched; None when unknown (then every read cap is reset)."""
    if isinstance(tool_input, dict):
        command = tool_input.get("command")
        if tool == "apply_patch" and isinstance(command, str):
            if is_stand_in(command):  # a patch of megabytes: only its ends are at hand (bigtext.py)
                return None
            return [p.strip() for p in re.findall(_PATCH_PATH, command, re.M)]
        path = path_of(tool_input, config)
        if path:
            return [path]
    return None


def is_noop_mutation(tool: str, tool_input: Any, response: Any) -> bool:
    """A Claude Code Write whose `originalFile` already equals the new content changed nothing."""
    if tool == "Write" and isinstance(tool_input, dict) and isinstance(response, dict):
        return response.get("originalFile") == tool_input.get("content") is not None
    return False
