"""Code Mode cells of Codex Desktop rollouts that record no nested items (0.144): the tool calls
an `exec` script makes, read from its JavaScript, and the share of the cell's output each got.

An `exec` `custom_tool_call`'s `input` is a script (`const r = await tools.shell_command({"command":
"ls", "workdir": "/w"});\\ntext(r);`); its `custom_tool_call_output` is a list of `input_text`
items, a header (`Script completed\\nWall time 0.3 seconds\\nOutput:\\n`, or `Script failed…`)
then one item per `text(…)` the script printed (a shell call's result reads `Exit code: 0\\nWall
time: 0.3 seconds\\nOutput:\\n…`; a tool error that ended the script, `Script error:\\n` and the
same). A cell still running answers the plain text `Script running with cell ID 7\\nWall time 10.0
seconds\\nOutput:\\n…`, and a `wait` call (`{"cell_id": "7"}`) later gives the rest. Nothing of the
script is run: a call is taken only where its argument is written as a literal, an object literal
whose values are literals (strings in any quotes, a template literal with no `${…}`, numbers,
booleans, null, arrays and objects of those; keys bare or quoted; trailing commas allowed), or, for
`tools.apply_patch`, a string literal or a name given one string literal once (`const patch =
\\`*** Begin Patch…\\`;`). Every other call site (`tools.NAME(` in the code) is counted as not read.

The script is read in one pass (`_scan`), which pairs brackets outside strings, comments and
regular expression literals; the work is linear in the script's length, whatever it holds.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import orjson

from ..core.signature import digest, normalise_text

_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_RUNNING = re.compile(r"\AScript running with cell ID (\S+)")
_HEADER = re.compile(r"\AScript (?:completed|failed|running with cell ID \S+)\b[^\n]*\n(?:Wall time[^\n]*\n)?Output:\n?")
_ERROR = "Script error:\n"
_NESTED_RESULT = re.compile(r"\AExit code: -?\d+\n")
#: What `_scan` stops at: a quote, a bracket, a slash, or a call site `tools.NAME(` (not a member
#: of another name: `x.tools.a(`, `mytools.a(`).
_TOKEN = re.compile(r"""["'`{}\[\]()/]|(?<![\w$.])tools\.([A-Za-z_$][\w$]*)\s*(\()\s*""")
#: A string in single or double quotes, to its closing quote or (unclosed) the end of its line.
_QUOTED = {q: re.compile(rf"{q}(?:[^{q}\\\n]|\\[\s\S])*({q})?") for q in "\"'"}
#: A template literal's text from where it (re)starts: to its closing backquote or a `${`.
_TEMPLATE = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")
#: A regular expression literal (one line, `/` inside a class or escaped does not end it).
_REGEX = re.compile(r"/(?![*/])(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/")
#: The words after which a `/` starts a regular expression, not a division.
_BEFORE_REGEX = re.compile(r"(?<![\w$])(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|await|yield)\Z")
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")
_ESCAPED = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": "", "\r": "", "\r\n": ""}
_KEY_END = re.compile(r"\s*:")
_CALL_END = re.compile(r"\s*,?\s*")
_STATEMENT_END = re.compile(r"[ \t]*(?:;|\r|\n|\Z)")
#: `const patch = …`, `patch = …`, `patch += …` (the name, and whether it is declared there).
_ASSIGN = re.compile(r"(?<![\w$.])(?:(const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*\+?=(?![=>])\s*")
#: Statements of a straight-line script whose prints can be told apart: one awaited call kept in a
#: name, several awaited together into names (`const [a, b] = await Promise.all([…])`), a call
#: whose result is not kept, and a print of one kept result.
_STATEMENTS = (
    re.compile(r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*await\s+@(\d+)@\s*;?\s*"),
    re.compile(r"(?:const|let|var)\s*\[([\w$\s,]*)\]\s*=\s*await\s+Promise\.all\(\s*\[\s*((?:@\d+@\s*(?:,\s*)?)*)\]\s*\)\s*;?\s*"),
    re.compile(r"await\s+@(\d+)@\s*;?\s*"),
    re.compile(r"text\(\s*([A-Za-z_$][\w$]*)\s*\)\s*;?\s*"),
)


class ScriptCall(NamedTuple):
    """One `tools.NAME(argument)` of a script: the tool's name, its argument (an object, or a
    string for a patch), and where the call's text starts and ends in the script."""

    name: str
    argument: Any
    start: int
    end: int


class Script(NamedTuple):
    """What is read of an `exec` script: its text, the calls whose argument could be read
    (`ScriptCall`, in the order they are written), and how many call sites (`tools.NAME(` in its
    code, read or not; one in a loop counts once) it holds."""

    text: str
    calls: tuple[ScriptCall, ...]
    sites: int


class _Scanned(NamedTuple):
    pairs: dict[int, int]  # where a bracket opens: where it closes
    literals: dict[int, int]  # where a string literal with no `${…}` starts: where it ends (past its quote)
    sites: list[tuple[int, int, int, str]]  # each `tools.NAME(`: where it starts, its `(`, its argument, NAME


def _regex_starts(text: str, i: int) -> bool:
    """Whether the `/` at `text[i]` (no comment) starts a regular expression literal: after an
    operator, an opening bracket, a separator, a keyword such as `return`, or at the start."""
    k = i - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    if k < 0 or text[k] in "(,=:[!&|?{};~+-*%<>^":
        return True
    return (text[k].isalnum() or text[k] in "_$") and _BEFORE_REGEX.search(text, max(0, k - 10), k + 1) is not None


def _scan(text: str) -> _Scanned:
    """One pass over a script: its brackets paired (outside strings, comments and regular
    expressions; a close pairs with the latest open bracket, of any kind), its string literals
    and its call sites. Linear in `len(text)`."""
    pairs: dict[int, int] = {}
    literals: dict[int, int] = {}
    sites: list[tuple[int, int, int, str]] = []
    stack: list[int] = []  # open brackets; -1 for a template's `${`
    i, n, plain = 0, len(text), 0  # plain: where a `/` may start a regular expression again
    while (found := _TOKEN.search(text, i)) is not None:
        j, ch = found.start(), text[found.start()]
        i = j + 1
        if found.group(1) is not None:
            sites.append((j, found.start(2), found.end(), found.group(1)))
            stack.append(found.start(2))
            i = found.end()
        elif ch in "\"'":
            quoted = _QUOTED[ch].match(text, j)
            assert quoted is not None  # matches at its own quote
            if quoted.group(1) is not None:
                literals[j] = quoted.end()
            i = quoted.end()
        elif ch == "`":
            i = _template(text, j + 1, j, stack, literals)
        elif ch == "/":
            if text.startswith("//", j):
                end = text.find("\n", j)
                i = n if end < 0 else end
            elif text.startswith("/*", j):
                end = text.find("*/", j + 2)
                i = n if end < 0 else end + 2
            elif j >= plain and _regex_starts(text, j):
                regex = _REGEX.match(text, j)
                if regex is not None:
                    i = regex.end()
                else:  # no regular expression after all: the line's other slashes are divisions
                    end = text.find("\n", j)
                    plain = n if end < 0 else end
        elif ch in "{[(":
            stack.append(j)
        elif stack:
            opened = stack.pop()
            if opened < 0:
                i = _template(text, j + 1, None, stack, literals)  # the `${…}` ends: the template goes on
            else:
                pairs[opened] = j
    return _Scanned(pairs, literals, sites)


def _template(text: str, i: int, start: int | None, stack: list[int], literals: dict[int, int]) -> int:
    """Read a template literal from `text[i]` (its start, or past a `${…}`'s `}`; `start` is
    where it opened when no `${` came yet): where the scan goes on."""
    end = _TEMPLATE.match(text, i)
    assert end is not None  # matches the empty text too
    at = end.end()
    if at >= len(text):
        return at
    if text[at] == "`":
        if start is not None:
            literals[start] = at + 1
        return at + 1
    stack.append(-1)  # `${`: code until its `}`
    return at + 2


def _unescape(found: re.Match[str]) -> str:
    escape = found.group(1)
    if escape[0] in "ux" and len(escape) > 1:
        return chr(int(escape.strip("u{}x") if escape[0] == "u" else escape[1:], 16))
    if escape in ("u", "x") or (escape.isdigit() and escape != "0"):
        raise ValueError(escape)  # not a string a script could hold
    return _ESCAPED.get(escape, escape)


def _string(text: str, start: int, end: int) -> str | None:
    """The value of the string literal `text[start:end]` (quotes included), or None when it
    holds an escape JavaScript refuses, or a lone surrogate."""
    body = text[start + 1 : end - 1]
    if text[start] == "`":
        body = body.replace("\r\n", "\n").replace("\r", "\n")  # a template's raw line breaks are `\n`
    try:
        value = _ESCAPE.sub(_unescape, body)
        return value.encode("utf-16", "surrogatepass").decode("utf-16")  # `\ud83d\ude00` is one character
    except (ValueError, UnicodeError, OverflowError):
        return None


def _object(text: str, start: int, close: int, literals: dict[int, int]) -> Any:
    """The object literal `text[start : close + 1]` as a value when it is one of literals
    (`{command: 'ls', "env": [1, 2,],}`), else None (a name as a value, a comment, a spread…)."""
    parts: list[str] = []
    i, last, comma = start, "", -1
    while i <= close:
        ch = text[i]
        if i in literals:
            value = _string(text, i, literals[i])
            if value is None:
                return None
            parts.append(orjson.dumps(value).decode())
            i, last = literals[i], '"'
            continue
        name = _NAME.match(text, i) if last in "{," else None
        if name is not None and _KEY_END.match(text, name.end()) is not None:
            parts.append(f'"{name.group(0)}"')
            i, last = name.end(), '"'
            continue
        if ch in "}]" and last == ",":
            parts[comma] = ""  # a trailing comma
        elif ch == ",":
            comma = len(parts)
        parts.append(ch)
        last = ch if not ch.isspace() else last
        i += 1
    try:
        value = orjson.loads("".join(parts))
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


class _Reader:
    """The calls of one script (`read_script`), read with the brackets and strings `_scan` found."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scanned = _scan(text)
        self.starts = [site[0] for site in self.scanned.sites]
        self.assigned: dict[str, list[re.Match[str]]] | None = None

    def call(self, start: int, paren: int, at: int, name: str) -> ScriptCall | None:
        text, scanned = self.text, self.scanned
        close = scanned.pairs.get(paren)
        if close is None:
            return None
        argument: Any = None
        end = at
        if text.startswith("{", at) and (end := scanned.pairs.get(at, -1) + 1) > 0:
            inner = bisect.bisect_right(self.starts, at)
            if inner == len(self.starts) or self.starts[inner] > end:  # no call inside the object
                argument = _object(text, at, end - 1, scanned.literals)
        elif name == "apply_patch" and at in scanned.literals:
            end = scanned.literals[at]
            argument = _string(text, at, end)
        elif name == "apply_patch" and (word := _NAME.match(text, at)) is not None:
            end = word.end()
            argument = self.named_string(word.group(0))
        after = _CALL_END.match(text, end)
        if argument is None or after is None or after.end() != close:
            return None
        return ScriptCall(name, argument, start, close + 1)

    def named_string(self, name: str) -> str | None:
        """The string literal a name is given once where it is declared (`const patch = "…";`),
        or None when it is given anything else, more than once, or joined with more text."""
        if self.assigned is None:
            self.assigned = {}
            for found in _ASSIGN.finditer(self.text):
                self.assigned.setdefault(found.group(2), []).append(found)
        assigned = self.assigned.get(name, [])
        if len(assigned) != 1 or assigned[0].group(1) is None:
            return None
        at = assigned[0].end()
        end = self.scanned.literals.get(at)
        if end is None or _STATEMENT_END.match(self.text, end) is None:
            return None
        return _string(self.text, at, end)


def read_script(script: str) -> Script:
    """The tool calls of an `exec` script whose argument can be read without running anything,
    in the order they are written, and how many call sites it holds (`Script`). The work is
    linear in the script's length."""
    reader = _Reader(script)
    calls = [reader.call(*site) for site in reader.scanned.sites]
    return Script(script, tuple(call for call in calls if call is not None), len(calls))


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
        if call.start < cut:
            return None
        marked += [script[cut : call.start], f"@{k}@"]
        cut = call.end
    rest = "".join([*marked, script[cut:]]).strip()
    held: dict[str, int] = {}
    order: list[int] = []
    at = 0
    while at < len(rest):
        for k, statement in enumerate(_STATEMENTS):
            found = statement.match(rest, at)
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
            at = found.end()
            break
        else:
            return None
    return order


def shares(script: Script, done: Printed) -> list[Any]:
    """The output each call of a finished cell gets (`script.calls`, `done` all the cell
    printed): a printed item where it is clearly that call's (the one call site and the one
    item; or a straight-line script whose prints, as many as the items, each print one call's
    result), else `unshared` (never the whole output to each: different calls would share one
    answer). A script with a call site that was not read gives every call `unshared`: what it
    printed may be that call's. A tool error that ended the script (`Script error:` and a tool's
    result) is its call's result; any other script error is no call's."""
    calls, items = script.calls, list(done.items)
    placeholders = unshared(done, len(calls), script.sites)
    if script.sites != len(calls):
        return placeholders
    if done.failed:
        error = items[-1] if items and isinstance(items[-1], str) and items[-1].startswith(_ERROR) else None
        nested = error[len(_ERROR) :] if error is not None else ""
        if len(calls) == 1 and len(items) == 1 and _NESTED_RESULT.match(nested):
            return [nested]
        return placeholders
    if len(calls) == 1 and len(items) == 1:
        return [items[0] if isinstance(items[0], str) else [items[0]]]
    order = _prints(script.text, calls)
    if order is not None and len(order) == len(items) and all(isinstance(item, str) for item in items):
        for k, item in zip(order, items, strict=True):
            placeholders[k] = item
    return placeholders


def unshared(done: Printed, count: int, sites: int) -> list[str]:
    """The outputs given to `count` calls (of a script of `sites` call sites) whose own part of
    the cell's output cannot be told: each a short text (shorter than the same-answer rule's
    `MIN_ANSWER_CHARS`, so no answer; no exit code or failure word, so no error) naming the
    call's place and a digest of what the cell printed. The same script printing the same again
    gives the same texts (a repeat is still seen as one), another call or another output another
    text (no answer shared between calls)."""
    text = "\n".join(item if isinstance(item, str) else orjson.dumps(item).decode() for item in done.items)
    printed_digest = digest(normalise_text(text).encode("utf-8", "surrogatepass"))[:8]
    return [f"(cell output of {sites} calls, #{k + 1} {printed_digest})" for k in range(count)]
