"""What a recording reader is: the one shape `readers.READERS` lists."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .jsonl import Line
from .model import Recording


@dataclass(frozen=True, slots=True)
class Reader:
    """One recording format.

    `format` is the name recordings and reports carry (`Recording.format`); `title` names it for
    people (`Codex rollout`). `recognises` gets one line's JSON object and says whether it belongs
    to this format; `read(path, lines, skipped)` turns a file's lines (and the count of lines
    already skipped as malformed) into recordings, raising `ReplayError` when it cannot.
    `transcript` is False for logs of hook payloads: their lines carry the hook's own fields, so
    they are recognised before any transcript format, and `read_transcript` refuses them.
    """

    format: str
    title: str
    recognises: Callable[[Mapping[str, Any]], bool]
    read: Callable[[str, list[Line], int], list[Recording]]
    transcript: bool = True
