"""Recognising loopguard's handlers in a `hooks` object (the shape both clients share:
`{Event: [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]}`), in our canonical
spelling or another one, and the notes about other spellings."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .change import InstallError
from .jsontext import kind, rewrite_json
from .tables import CANONICAL_COMMAND, SESSION_END_TIMEOUT_SECONDS, TIMEOUT_SECONDS, handler

_LOOPGUARD_WORD = re.compile(r"(?:^|[\s/\\'\"=])loopguard[-_]hook(?:\.exe|\.py)?(?=$|[\s'\"])")


def is_our_command(command: object) -> bool:
    """True for the canonical command, alone or with arguments after it (`loopguard-hook …`)."""
    if not isinstance(command, str):
        return False
    text = command.strip()
    return text == CANONICAL_COMMAND or (
        text.startswith(CANONICAL_COMMAND) and text[len(CANONICAL_COMMAND)].isspace()
    )


def command_line(entry: Mapping[str, Any]) -> str:
    """The handler's command with its exec-form `args` (Claude Code) joined by spaces."""
    command = entry.get("command")
    parts = [command] if isinstance(command, str) else []
    args = entry.get("args")  # Claude Code's exec form
    if isinstance(args, list):
        parts += [a for a in args if isinstance(a, str)]
    return " ".join(parts)


def is_ours(entry: object) -> bool:
    """A handler object whose command is ours (`is_our_command`)."""
    return isinstance(entry, dict) and is_our_command(entry.get("command"))


#: The handler objects `install` writes, and so the only ones `uninstall` removes: exactly
#: `{"type": "command", "command": "loopguard-hook", "timeout": 10}` (3 on SessionEnd), no other
#: key. Any other entry that runs loopguard (with arguments, another timeout, a `statusMessage`,
#: another spelling) was written by hand and is left alone, with a note.
_INSTALLED = tuple({**handler(), "timeout": t} for t in (TIMEOUT_SECONDS, SESSION_END_TIMEOUT_SECONDS))
#: The command lines install writes for a host that needs its name (or the event) on the command
#: line, and Gemini CLI's guard against a missing command (`|| true`); their timeouts (Gemini
#: CLI counts milliseconds).
HOST_COMMAND = re.compile(r"loopguard-hook(?: --client [a-z-]+)?(?: --event [A-Za-z]+)?(?: \|\| true)?")
_HOST_TIMEOUTS = (TIMEOUT_SECONDS, SESSION_END_TIMEOUT_SECONDS, TIMEOUT_SECONDS * 1000, SESSION_END_TIMEOUT_SECONDS * 1000)


def installed_by_us(entry: object) -> bool:
    """A handler object exactly as `install` writes it (`_INSTALLED`, or the command line and
    timeout it writes for a host that needs more on the command line), no other key."""
    if not isinstance(entry, dict):
        return False
    if any(entry == form and all(type(entry[k]) is type(v) for k, v in form.items()) for form in _INSTALLED):
        return True
    command, timeout = entry.get("command"), entry.get("timeout")
    return (
        set(entry) == {"type", "command", "timeout"} and entry["type"] == "command" and isinstance(command, str)
        and HOST_COMMAND.fullmatch(command) is not None and type(timeout) is int and timeout in _HOST_TIMEOUTS
    )


def runs_loopguard(entry: object) -> bool:
    """Ours, or another spelling of the same program (a full path, `python -m loopguard_hook`)."""
    return isinstance(entry, dict) and (
        is_ours(entry) or bool(_LOOPGUARD_WORD.search(command_line(entry)))
    )


def handlers(hooks: Mapping[str, Any]) -> Iterator[tuple[str, int, int, dict[str, Any]]]:
    """(event, group index, handler index, handler) for every well-formed handler."""
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for gi, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            for hi, entry in enumerate(group["hooks"]):
                if isinstance(entry, dict):
                    yield event, gi, hi, entry


def loopguard_events(hooks: object) -> dict[str, list[str]]:
    """Event -> command lines of every handler that runs loopguard, in one `hooks` object."""
    found: dict[str, list[str]] = {}
    if isinstance(hooks, dict):
        for event, _, _, entry in handlers(hooks):
            if runs_loopguard(entry):
                found.setdefault(event, []).append(command_line(entry))
    return found


def variant_notes(where: Path, found: Mapping[str, list[str]]) -> list[str]:
    """Warnings for loopguard run under another spelling in `where` (`found` as from
    `loopguard_events`), and notes for ours with arguments, which are kept."""
    variants = sorted({cmd for cmds in found.values() for cmd in cmds if not is_our_command(cmd)})
    notes = []
    for cmd in variants:
        events = [e for e, cmds in found.items() if cmd in cmds]
        both = [e for e in events if any(is_our_command(c) for c in found[e])]
        how = (
            f"on {', '.join(both)} both run (twice the processes, and the first to run decides)"
            if both else "each event runs one of the two, so a change to one is easily missed on the others"
        )
        notes.append(
            f"warning: {where} runs loopguard as `{cmd}` on {', '.join(events)}, not as `{CANONICAL_COMMAND}`: "
            f"{how}; replace it with `{CANONICAL_COMMAND}` (or remove it)"
        )
    for event, cmds in found.items():
        for cmd in cmds:
            if is_our_command(cmd) and cmd.strip() != CANONICAL_COMMAND:
                notes.append(
                    f"note: {where} already runs `{cmd}` on {event}; kept as it is (written by hand: uninstall "
                    "leaves it too)"
                )
    return notes


def merge_groups(
    path: Path,
    hooks: dict[str, Any],
    table: Mapping[str, list[dict[str, Any]]],
    elsewhere: Mapping[str, Path],
) -> tuple[list[str], list[str]]:
    """Append `table`'s groups to `hooks` in place, per event, unless loopguard is there already
    or registered `elsewhere`. Returns (events added, events skipped for `elsewhere`)."""
    added: list[str] = []
    skipped: list[str] = []
    for event, groups in table.items():
        current = hooks.get(event)
        if current is not None and not isinstance(current, list):
            raise InstallError(
                f"{path}: hooks.{event} is {kind(current)}, not an array of matcher groups; "
                "nothing was changed"
            )
        if loopguard_events({event: current or []}):
            continue  # already there, in whatever form the user gave it
        if event in elsewhere:
            skipped.append(event)
            continue
        hooks[event] = (current or []) + copy.deepcopy(groups)
        added.append(event)
    return added, skipped


def without_ours(hooks: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(`hooks` without the handlers install wrote (`installed_by_us`), events they were removed
    from). A matcher group or event left empty by the removal goes too; everything else, a
    hand-written entry for the guard included, keeps its order and shape."""
    kept_hooks: dict[str, Any] = {}
    removed: list[str] = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept_hooks[event] = groups
            continue
        kept_groups = []
        for group in groups:
            entries = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(entries, list) and any(installed_by_us(e) for e in entries):
                remaining = [e for e in entries if not installed_by_us(e)]
                if event not in removed:
                    removed.append(event)
                if not remaining:
                    continue
                group = {**group, "hooks": remaining}
            kept_groups.append(group)
        if kept_groups or event not in removed:
            kept_hooks[event] = kept_groups
    return kept_hooks, removed


def take_out(path: Path, old_text: str | None, data: Mapping[str, Any]) -> tuple[str | None, dict[str, Any], list[str], str]:
    """A settings file (`old_text`, parsed: `data`) without our handlers: (its new text, the
    `hooks` kept, the events ours were removed from, the message saying so). `hooks` goes when
    nothing is left in it; the text is unchanged when nothing was ours."""
    kept, removed = without_ours(data.get("hooks", {}))
    if not removed:
        where = path if old_text is not None else f"{path} (absent)"
        return old_text, kept, removed, f"{where}: loopguard-hook is not registered there; nothing to change"
    value = copy.deepcopy(dict(data))
    if kept:
        value["hooks"] = kept
    else:
        del value["hooks"]
    return rewrite_json(old_text, value), kept, removed, f"removes `{CANONICAL_COMMAND}` from {path} for: {', '.join(removed)}"
