"""DSH patch layers (`cordis.patch.yml`): adding and removing the block of rows that mounts a
hook bridge, by text edits that leave every other line as it is.

DSH facts (dsh 0.1.0-rc.8, `dsh-app-boot`): a patch layer is a top-level YAML array of loader
patch entries; a file that does not parse to an array fails the boot loudly, a missing file is
"no layer". An entry `{insert: [rows]}` without `id` appends its rows to the root entry list; a
row is `{id, name, config}`, `name` being the plugin to load (a package name or a file path).
The profile template is the one line `[]` under a comment.

The block is delimited by two comment lines naming the client, so it is found again by text:

    # >>> loopguard-hook dsh-claude-code: …
    - insert:
        - id: loopguard-hook-dsh-claude-code
          name: "/…/dsh-hooks-claude-code/lib/index.js"
          config:
            configPath: "/…/hooks-claude-code.json"
    # <<< loopguard-hook dsh-claude-code

The Codex bridge's block has a second row after the bridge's, the `bash` service it waits for
(`dsh_service`): `- id: loopguard-hook-dsh-codex-bash-service` with its `name:`.
"""

from __future__ import annotations

import json
from pathlib import Path

from .change import InstallError


def _begin(client: str) -> str:
    return f"# >>> loopguard-hook {client}"


def _end(client: str) -> str:
    return f"# <<< loopguard-hook {client}"


_IN_PLACE_OF_EMPTY = " (in place of [])"


def block_lines(
    client: str,
    row_id: str,
    entry: Path,
    hooks_file: Path,
    *,
    service: tuple[str, Path] | None = None,
    in_place_of_empty: bool = False,
) -> list[str]:
    """The block's lines (no line ends): the bridge's row, then `service` ((row id, plugin
    file), a plugin the bridge needs) when given. JSON strings are YAML double-quoted scalars. A
    block that took the place of the template's `[]` says so on its last line, so that uninstall
    can put the `[]` back."""
    extra = [f"    - id: {service[0]}", f"      name: {json.dumps(str(service[1]))}"] if service else []
    return [
        f"{_begin(client)}: mounts the DSH hook bridge that runs loopguard-hook "
        f"(`loopguard-hook uninstall --client {client}` removes this block)",
        "- insert:",
        f"    - id: {row_id}",
        f"      name: {json.dumps(str(entry))}",
        "      config:",
        f"        configPath: {json.dumps(str(hooks_file))}",
        *extra,
        _end(client) + (_IN_PLACE_OF_EMPTY if in_place_of_empty else ""),
    ]


def find_block(text: str | None, client: str) -> tuple[int, int] | None:
    """(first, last) line index of the client's block, None when absent or unterminated."""
    lines = (text or "").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith(_begin(client))]
    if not starts:
        return None
    ends = (_end(client), _end(client) + _IN_PLACE_OF_EMPTY)
    end = next((i for i in range(starts[0], len(lines)) if lines[i].strip() in ends), None)
    return None if end is None else (starts[0], end)


def block_entry(text: str | None, client: str) -> Path | None:
    """The bridge file the client's block mounts (its first `name:`), None without a block."""
    where = find_block(text, client)
    if where is None:
        return None
    for line in (text or "").splitlines()[where[0] : where[1] + 1]:
        key, _, value = line.strip().partition(": ")
        if key == "name":
            try:
                name = json.loads(value)
            except ValueError:
                return None
            return Path(name) if isinstance(name, str) else None
    return None


def _significant(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]


def with_block(path: Path, old_text: str | None, client: str, block: list[str]) -> str:
    """`old_text` with the client's `block` (from `block_lines` without `in_place_of_empty`):
    replaced where it is, else put in place of a lone `[]`, else appended after a block-style
    list (or after comments only).

    Raises:
        InstallError: the file's list is in a form these edits cannot extend (flow style with
            items, a mapping, a document marker); the message holds the rows to add by hand.
    """
    newline = "\r\n" if old_text and "\r\n" in old_text else "\n"
    lines = (old_text or "").splitlines()
    where = find_block(old_text, client)
    rows = _significant(lines)
    if where is not None:
        lines[where[0] : where[1] + 1] = block[:-1] + [lines[where[1]].strip()]
    elif len(rows) == 1 and lines[rows[0]].strip() == "[]":
        lines[rows[0] : rows[0] + 1] = block[:-1] + [block[-1] + _IN_PLACE_OF_EMPTY]
    elif not rows or lines[rows[0]].startswith("-") and lines[rows[0]][1:2] in ("", " "):
        lines += block
    else:
        raise InstallError(
            f"{path}: its patch list is neither `[]` nor a block-style list (`- …` rows at the "
            "start of a line), so the rows cannot be added safely; add them by hand:\n"
            + "\n".join(block)
        )
    return newline.join(lines) + newline


def without_block(old_text: str | None, client: str) -> str | None:
    """`old_text` without the client's block (`old_text` unchanged when there is none): the
    `[]` it replaced goes back; None when nothing at all is left (delete the file)."""
    where = find_block(old_text, client)
    if old_text is None or where is None:
        return old_text
    newline = "\r\n" if "\r\n" in old_text else "\n"
    lines = old_text.splitlines()
    replaced_empty = lines[where[1]].strip().endswith(_IN_PLACE_OF_EMPTY)
    lines[where[0] : where[1] + 1] = ["[]"] if replaced_empty else []
    if not any(line.strip() for line in lines):
        return None
    return newline.join(lines) + newline


#: The clients whose blocks a patch layer may hold.
BLOCK_CLIENTS = ("dsh-claude-code", "dsh-codex")
#: What starts every block of the guard's.
BLOCK_MARK = "# >>> loopguard-hook "


def without_blocks(text: str | None) -> str | None:
    """`text` without any block of the guard's (either bridge's), as `without_block` leaves it:
    what the user wrote there. None when nothing else is left."""
    for client in BLOCK_CLIENTS:
        text = without_block(text, client)
    return text


def other_mounts(text: str | None, client: str, package: str) -> list[int]:
    """1-based numbers of lines outside the client's block that name `package` (another mount
    of the same bridge, whose hooks config may run loopguard-hook too)."""
    where = find_block(text, client)
    return [
        i + 1
        for i, line in enumerate((text or "").splitlines())
        if package.rsplit("/", 1)[-1] in line and not (where and where[0] <= i <= where[1])
    ]
