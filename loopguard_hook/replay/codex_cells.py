"""Code Mode cells of Codex Desktop rollouts that record no nested items (0.144): the tool calls
an `exec` script makes, read from its JavaScript, and the share of the cell's output each got.

An `exec` `custom_tool_call`'s `input` is a script (`const r = await tools.shell_command({"command":
"ls", "workdir": "/w"});\\ntext(r);`); its `custom_tool_call_output` is a list of `input_text`
items, a header (`Script completed\\nWall time 0.3 seconds\\nOutput:\\n`, or `Script failed…`)
then one item per `text(…)` the script printed (a shell call's result reads `Exit code: 0\\nWall
time: 0.3 seconds\\nOutput:\\n…`; a tool error that ended the script, `Script error:\\n` and the
same). A cell still running answers the plain text `Script running with cell ID 7\\nWall time 10.0
seconds\\nOutput:\\n…`, and a `wait` call (`{"cell_id": "7"}`) later gives the rest. Nothing of the
script is run: a call is taken only where its argument is an object literal that is JSON once its
bare keys are quoted (`{command: "ls"}`), or, for `tools.apply_patch(patch)`, a name given a JSON
string literal once (`const patch = "*** Begin Patch…";`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import orjson

from ..core.signature import digest, normalise_text

_TOOL = re.compile(r"tools\.([A-Za-z_$][\w$]*)\s*\(\s*")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_RUNNING = re.compile(r"\AScript running with cell ID (\S+)")
_HEADER = re.compile(r"\AScript (?:completed|failed|running with cell ID \S+)\b[^\n]*\n(?:Wall time[^\n]*\n)?Output:\n?")
_ERROR = "Script error:\n"
_COMMENT = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_NESTED_RESULT = re.compile(r"\AExit code: -?\d+\n")
#: Statements of a straight-line script whose prints can be told apart: one awaited call kept in a
#: name, several awaited together into names (`const [a, b] = await Promise.all([…])`), a call
#: whose result is not kept, and a print of one kept result.
_STATEMENTS = (
    re.compile(r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*await\s+@(\d+)@\s*;?"),
    re.compile(r"(?:const|let|var)\s*\[([\w$\s,]*)\]\s*=\s*await\s+Promise\.all\(\s*\[((?:\s*@\d+@\s*,?)*)\]\s*\)\s*;?"),
    re.compile(r"await\s+@(\d+)@\s*;?"),
    re.compile(r"text\(\s*([A-Za-z_$][\w$]*)\s*\)\s*;?"),
)


class ScriptCall(NamedTuple):
    """One `tools.NAME(argument)` of a script: the tool's name, its argument (an object, or a
    string for a patch), and where the call's text starts and ends in the script."""

    name: str
    argument: Any
    start: int
    end: int


def _string_end(text: str, i: int) -> int:
    """Where the string literal opening at `text[i]` (`"`, `'` or a backquote) ends (past its
    closing quote), or `len(text)` when it does not."""
    quote, i = text[i], i + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return len(text)


def _code(text: str) -> list[int]:
    """The positions of `text` outside string literals and comments."""
    out: list[int] = []
    i = 0
    while i < len(text):
        comment = _COMMENT.match(text, i) if text[i] == "/" else None
        if text[i] in "\"'`":
            i = _string_end(text, i)
        elif comment is not None:
            i = comment.end()
        else:
            out.append(i)
            i += 1
    return out


def _balanced(text: str, i: int) -> int | None:
    """Where the object literal opening at `text[i]` (`{`) ends (past its `}`), or None."""
    depth = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'`":
            i = _string_end(text, i)
            continue
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _as_json(literal: str) -> Any:
    """An object literal as JSON once its bare keys are quoted (`{command: "ls"}`), or None when
    it is anything else (a name as a value, a single-quoted string, a comment, a spread…)."""
    parts: list[str] = []
    i, last = 0, ""
    while i < len(literal):
        ch = literal[i]
        if ch == '"':
            end = _string_end(literal, i)
            parts.append(literal[i:end])
            i, last = end, '"'
            continue
        name = _NAME.match(literal, i) if last in "{," else None
        if name is not None and literal[name.end() :].lstrip().startswith(":"):
            parts.append(f'"{name.group(0)}"')
            i, last = name.end(), '"'
            continue
        parts.append(ch)
        last = ch if not ch.isspace() else last
        i += 1
    try:
        value = orjson.loads("".join(parts))
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _named_string(script: str, name: str) -> str | None:
    """The JSON string literal a name is given once (`const patch = "…";`), or None when it is
    given anything else or more than once."""
    assigned = [m for m in re.finditer(rf"(?<![\w$.]){re.escape(name)}\s*\+?=(?!=)", script)]
    if len(assigned) != 1:
        return None
    declared = re.compile(rf"(?:const|let|var)\s+{re.escape(name)}\s*=\s*").search(script, max(0, assigned[0].start() - 6))
    if declared is None or declared.end() >= len(script) or script[declared.end()] != '"':
        return None
    end = _string_end(script, declared.end())
    rest = script[end:].lstrip(" \t")
    if rest[:1] not in ("", ";", "\n", "\r"):
        return None  # joined with more text: not a plain literal
    try:
        value = orjson.loads(script[declared.end() : end])
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def script_calls(script: str) -> list[ScriptCall]:
    """The tool calls of an `exec` script whose argument can be read without running anything,
    in the order they are written (a call whose argument cannot be read is left out)."""
    code = set(_code(script))
    calls: list[ScriptCall] = []
    for found in _TOOL.finditer(script):
        start = found.start()
        if start not in code or (start and (script[start - 1].isalnum() or script[start - 1] in "_$.")):
            continue
        at = found.end()
        if script.startswith("{", at):
            end = _balanced(script, at)
            argument = _as_json(script[at:end]) if end is not None else None
        else:
            name = _NAME.match(script, at)
            end = name.end() if name is not None else None
            argument = _named_string(script, name.group(0)) if name is not None and found.group(1) == "apply_patch" else None
        close = script[end:].lstrip() if end is not None else ""
        if argument is None or end is None or not close.startswith(")"):
            continue
        calls.append(ScriptCall(found.group(1), argument, start, len(script) - len(close) + 1))
    return calls


class Printed(NamedTuple):
    """What one output of a cell says: whether the cell still runs (its `cell_id`, else None),
    whether it failed, and the items it printed (texts, or an item as recorded when not a text)."""

    cell: str | None
    failed: bool
    items: tuple[Any, ...]


def printed(output: Any) -> Printed | None:
    """An `exec` or `wait` output read as a cell's (`Printed`), or None for any other output."""
    if isinstance(output, str):
        found = _RUNNING.match(output)
        header = _HEADER.match(output) if found is not None else None
        if found is None or header is None:
            return None
        rest = output[header.end() :]
        return Printed(found.group(1), False, (rest,) if rest else ())
    if not isinstance(output, list) or not output or not isinstance(output[0], dict):
        return None
    head = output[0].get("text")
    if not isinstance(head, str) or _HEADER.match(head) is None:
        return None
    items = tuple(item.get("text") if item.get("type") == "input_text" else item for item in output[1:] if isinstance(item, dict))
    running = _RUNNING.match(head)
    return Printed(running.group(1) if running else None, head.startswith("Script failed"), items)


def _prints(script: str, calls: Sequence[ScriptCall]) -> list[int] | None:
    """For a straight-line script, which call each `text(…)` prints, in order (`_STATEMENTS`), or
    None when the script does anything else."""
    marked, cut = [], 0
    for k, call in enumerate(calls):
        marked += [script[cut : call.start], f"@{k}@"]
        cut = call.end
    rest = "".join([*marked, script[cut:]]).strip()
    held: dict[str, int] = {}
    order: list[int] = []
    while rest:
        for k, statement in enumerate(_STATEMENTS):
            found = statement.match(rest)
            if found is None:
                continue
            if k == 0:
                held[found.group(1)] = int(found.group(2))
            elif k == 1:
                names = [n.strip() for n in found.group(1).split(",") if n.strip()]
                awaited = [int(n) for n in re.findall(r"@(\d+)@", found.group(2))]
                if len(names) > len(awaited):
                    return None
                held.update(zip(names, awaited, strict=False))
            elif k == 3:
                if held.get(found.group(1)) is None:
                    return None  # a name no call gave
                order.append(held.pop(found.group(1)))
            rest = rest[found.end() :].lstrip()
            break
        else:
            return None
    return order


def shares(script: str, calls: Sequence[ScriptCall], done: Printed) -> list[Any]:
    """The output each call of a finished cell gets (`calls` as `script_calls` found them, `done`
    all the cell printed): a printed item where it is clearly that call's (the one call and the
    one item; or a straight-line script whose prints, as many as the items, each print one
    call's result), else `unshared` (never the whole output to each: different calls would
    share one answer). A tool error that ended the script (`Script error:` and a tool's result)
    is its call's result; any other script error is no call's."""
    items = list(done.items)
    if done.failed:
        error = items[-1] if items and isinstance(items[-1], str) and items[-1].startswith(_ERROR) else None
        nested = error[len(_ERROR) :] if error is not None else ""
        if len(calls) == 1 and len(items) == 1 and _NESTED_RESULT.match(nested):
            return [nested]
        return [unshared(done, k, len(calls)) for k in range(len(calls))]
    if len(calls) == 1 and len(items) == 1:
        return [items[0] if isinstance(items[0], str) else [items[0]]]
    order = _prints(script, calls)
    out = [unshared(done, k, len(calls)) for k in range(len(calls))]
    if order is not None and len(order) == len(items) and all(isinstance(item, str) for item in items):
        for k, item in zip(order, items, strict=True):
            out[k] = item
    return out


def unshared(done: Printed, index: int, count: int) -> str:
    """The output given to a call whose own part of the cell's output cannot be told: a short
    text (shorter than the same-answer rule's `MIN_ANSWER_CHARS`, so no answer; no exit code or
    failure word, so no error) naming the call's place and a digest of what the cell printed.
    The same script printing the same again gives the same text (a repeat is still seen as
    one), another call or another output another text (no answer shared between calls)."""
    text = "\n".join(item if isinstance(item, str) else orjson.dumps(item).decode() for item in done.items)
    return f"(cell output of {count} calls, #{index + 1} {digest(normalise_text(text).encode('utf-8', 'surrogatepass'))[:8]})"
