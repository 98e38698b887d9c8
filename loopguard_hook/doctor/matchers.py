"""Whether a matcher fires on a client's tool names, by that client's own rules.

Client facts:

- Claude Code 2.1.332 (`shared/research/claude-code-hooks.md` §6.3): absent, `""` and `"*"`
  match everything; a matcher of only letters, digits, `_`, `-`, space, `,` and `|` is an exact
  name or a list (`Edit|Write`, `Edit, Write`); anything else is an unanchored regex. Main tool
  names: `Bash`, `Read`, `Edit`, `Write`.
- Codex 0.171.0 (`codex-hooks.md` §2.3): absent, `""` and `"*"` match everything; only
  `[A-Za-z0-9_|]` is a literal exact match with `|` alternation; anything else an unanchored
  regex; `Edit` and `Write` also match `apply_patch`. The shell tool is `Bash`, edits are
  `apply_patch`.
- DSH bridges (dsh 0.1.0-rc.8, `dsh-hooks.md` §2, `dsh-hook-protocol` `matchesMatcher`): absent,
  `""` and `"*"` match everything; anything else is a case-sensitive unanchored regex tested
  against DSH's lower-case names `read`, `bash`, `edit`, `write`.
- Qwen Code 0.24.4 (`qwen-code-hooks.md` §2): absent, `""`, `"*"` and `".*"` match everything;
  otherwise an exact name, a `|` list or an unanchored regex, and Claude Code's names (`Bash`,
  `Read`, `Edit`, `Write`) are aliases of Qwen's `run_shell_command`, `read_file`, `edit`,
  `write_file`.
- Gemini CLI 0.61.0 (`gemini-cli-hooks.md` §2): absent, `""` and `"*"` match everything;
  otherwise a regex on `run_shell_command`, `read_file`, `replace`, `write_file`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

TOOL_NAMES: Final = {
    "claude-code": ("Bash", "Read", "Edit", "Write"),
    "codex": ("Bash", "apply_patch"),
    "dsh": ("read", "bash", "edit", "write"),
    "qwen-code": ("run_shell_command", "read_file", "edit", "write_file"),
    "gemini-cli": ("run_shell_command", "read_file", "replace", "write_file"),
    # Copilot CLI 1.0.102, Cursor (documented names) and Droid 0.215.0: their files register no
    # matcher (Copilot, Cursor) or "*" (Droid), which selects every tool.
    "copilot": ("bash", "view", "edit", "create"),
    "cursor": ("Shell", "Read", "Write", "StrReplace"),
    "droid": ("Execute", "Read", "Edit", "Create"),
}

#: Events whose matcher selects tools (the others are checked only for being valid).
TOOL_EVENTS: Final = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})

_CODEX_ALIASES: Final = {"apply_patch": ("Edit", "Write")}
_QWEN_ALIASES: Final = {"run_shell_command": "Bash", "read_file": "Read", "edit": "Edit", "write_file": "Write"}


def _search(pattern: str, name: str) -> bool:
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return False


def fires(dialect: str, matcher: str | None, name: str) -> bool:
    """Whether `matcher` selects tool `name` under `dialect` (`claude-code`, `codex`, `dsh`).
    An invalid regex selects nothing (Claude Code and Codex skip the group; the DSH bridges
    register no hook at all)."""
    if matcher is None or matcher in ("", "*"):
        return True
    if dialect == "claude-code" and re.fullmatch(r"[A-Za-z0-9_\-, |]+", matcher):
        return name in {part.strip() for part in re.split(r"[|,]", matcher)}
    if dialect == "codex" and re.fullmatch(r"[A-Za-z0-9_|]+", matcher):
        names = {name, *_CODEX_ALIASES.get(name, ())}
        return bool(names & set(matcher.split("|")))
    if dialect == "codex":
        return any(_search(matcher, n) for n in (name, *_CODEX_ALIASES.get(name, ())))
    if dialect == "qwen-code" and name in _QWEN_ALIASES:
        return matcher == ".*" or any(_search(matcher, n) for n in (name, _QWEN_ALIASES[name]))
    return _search(matcher, name)


def missed(dialect: str, matcher: str | None, names: Sequence[str]) -> list[str]:
    """The tool `names` that `matcher` does not select."""
    return [n for n in names if not fires(dialect, matcher, n)]
