"""The calls of a Codex rollout that fire no hook (`write_stdin` polls of a running command), for
replay: handed to the engine at the events where the live hook would read them, and listed in
the report (the facts are in `hosts/rollout.py`)."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.event import Unhooked
from ..hosts.rollout import unhooked_items
from .codex_tools import CODEX_UNHOOKED_TOOLS
from .jsonl import Line
from .model import Poll


def line_items(lines: Iterable[Line]) -> list[tuple[int, Unhooked]]:
    """Every unhooked call and command output of a rollout, with the line it is on, as the live
    hook's reader gives them (`rollout.unhooked_items`)."""
    return [(line.number, item) for line in lines if _maybe(line) for item in unhooked_items(line.data)]


def _maybe(line: Line) -> bool:
    data = line.data
    payload = data.get("payload")
    kind = payload.get("type") if isinstance(payload, dict) else data.get("type")
    return kind in ("function_call", "function_call_output", "custom_tool_call_output")


def polls(items: Iterable[Unhooked]) -> list[Poll]:
    """The `write_stdin` polls among `items` (in rollout order), each with its answer and the
    command of the session it polled."""
    commands: dict[str, str] = {}  # call id of a command -> its command line
    sessions: dict[int, str] = {}  # session -> the command that left it running
    out: list[Poll] = []
    waiting: dict[str, int] = {}  # call id of a poll -> its index in `out`
    for item in items:
        if item.kind == "command":
            commands[item.call_id] = item.text
        elif item.kind == "poll" and item.session is not None and item.time is not None:
            waiting[item.call_id] = len(out)
            out.append(Poll(item.time, item.call_id, item.session, sessions.get(item.session, ""), item.text, None, False, None))
        elif item.kind == "output":
            if item.call_id in commands and item.session is not None:
                sessions[item.session] = commands.pop(item.call_id)
            index = waiting.pop(item.call_id, None)
            if index is not None:
                poll = out[index]
                out[index] = Poll(
                    poll.time, poll.call_id, poll.session, poll.command, poll.typed, item.time, item.empty, item.code
                )
    return out


def unseen_calls(lines: Iterable[Line]) -> dict[str, str]:
    """The calls of a tool that fires no hook a rollout holds, but `write_stdin` (listed as
    `polls`): Codex 0.171.0's code-mode `exec` and `wait`, `tool_search`, `web_search`
    (`CODEX_UNHOOKED_TOOLS`), each call id with its tool. Replay does not judge them."""
    seen: dict[str, str] = {}
    for line in lines:
        payload = line.data.get("payload")
        item = payload if isinstance(payload, dict) else line.data
        name, call_id = item.get("name"), item.get("call_id")
        if item.get("type") in ("function_call", "custom_tool_call") and name in CODEX_UNHOOKED_TOOLS and name != "write_stdin":
            if isinstance(call_id, str):
                seen.setdefault(call_id, name)
    return seen

