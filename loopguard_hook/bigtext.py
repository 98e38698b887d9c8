"""Big payloads: decoded without building their big texts.

A Claude Code `Write` of a 5 MiB file sends that file three times (`tool_input.content`,
`tool_response.content` and `tool_response.originalFile`, 2.1.332 captured payloads): 17 MB of
JSON whose full decode (a Python string per copy, slow for non-ASCII text) costs more than the
rest of the event. The guard never needs those texts whole: it hashes them and quotes their start.

The rule, one for every payload and every path (in-process and resident): in `tool_input` and
`tool_response` (also those of a `PostToolBatch`'s `tool_calls`), a string whose JSON text is
longer than `THRESHOLD` bytes is replaced by a *stand-in*: its decoded head and tail (about
`END_BYTES` of JSON each, cut at a space) around a token that names its length and a digest of
the JSON bytes between them. A payload of at most `THRESHOLD` bytes holds no such string, so it is
decoded whole (orjson, as before). Two texts have equal stand-ins exactly when their JSON is equal
(one host writes one text one way), so a repeated big `Write` is still a repeat, its PreToolUse
and PostToolUse still pair, and two different contents stay apart. What a stand-in's middle holds
is not checked for UTF-8; its head and tail are. The token never reaches the model or a log:
`shown` cuts a text there.

The splitting uses msgspec (`Raw` values: a scan, no decoding), imported only for a payload over
the threshold (about 10 ms once in a process; the resident helper loads it at warm-up).
"""

from typing import Any

import orjson

#: Strings whose JSON text is longer than this (bytes, quotes included) are stood in for.
THRESHOLD = 1 << 20
#: JSON bytes of a long text decoded at each end (the timing lines of a long output sit there).
END_BYTES = 16384
#: Starts the token inside a stand-in (a NUL never comes from a host's JSON unescaped text).
TOKEN = "\x00loopguard-big-text "
#: The top-level fields whose big strings are stood in for, and the batch list holding more.
TOOL_FIELDS = frozenset({"tool_input", "tool_response"})
BATCH_FIELD = "tool_calls"
#: Levels of big containers split at most (deeper big payloads are decoded whole).
MAX_SPLIT_DEPTH = 64

# How the values under a key are decoded: whole, with stand-ins, or as the batch list / entry.
_WHOLE, _TEXTS, _BATCH, _ENTRY = range(4)


def shown(text: str) -> str:
    """`text` up to a stand-in's token (with `…` when cut there): what may be quoted or logged."""
    at = text.find(TOKEN)
    if at < 0:  # a cut may have left the token's start at the end
        at = next((len(text) - k for k in range(len(TOKEN) - 1, 1, -1) if text.endswith(TOKEN[:k])), -1)
    return text if at < 0 else text[:at] + "…"


def is_stand_in(value: object) -> bool:
    """Whether `value` is a stand-in for a big text."""
    return isinstance(value, str) and TOKEN in value


def token_of(value: str) -> str:
    """The token of a stand-in (what identifies its text)."""
    start = value.find(TOKEN)
    return value[start : value.find("\x00", start + 1) + 1]


class _Split(Exception):
    """The payload cannot be split here: decode it whole."""


def decode_big(raw: bytes) -> Any:
    """The decoded object of a payload longer than `THRESHOLD`, with stand-ins; None when it is
    not a JSON object that splits cleanly (invalid JSON, lone surrogates, deep nesting): the
    caller then decodes it whole and reports what is wrong exactly as for any payload."""
    import msgspec

    try:
        return _object(raw, _WHOLE, {}, 0)
    except (_Split, msgspec.DecodeError, msgspec.ValidationError, orjson.JSONDecodeError, RecursionError):
        return None


_DECODERS: dict[str, Any] = {}


def decoders() -> None:
    """Import msgspec and make the decoders now (the resident helper does, at warm-up)."""
    _decoder("{")
    _decoder("[")


def _decoder(kind: str) -> Any:
    decoder = _DECODERS.get(kind)
    if decoder is None:
        import msgspec

        shape: Any = dict[str, msgspec.Raw] if kind == "{" else list[msgspec.Raw]
        decoder = _DECODERS[kind] = msgspec.json.Decoder(shape)
    return decoder


def _object(raw: Any, mode: int, seen: dict[int, list[tuple[bytes, str]]], depth: int) -> dict[str, Any]:
    items = _decoder("{").decode(raw)
    out = {}
    for key, value in items.items():
        try:
            key.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate escape: the whole decode replaces it
            raise _Split from None
        if mode == _TEXTS or key in TOOL_FIELDS:
            child = _TEXTS
        elif mode == _WHOLE and key == BATCH_FIELD:  # the top level (deeper `_WHOLE` values are never split)
            child = _BATCH
        else:
            child = _WHOLE
        out[key] = _value(value, child, seen, depth + 1)
    return out


def _value(raw: Any, mode: int, seen: dict[int, list[tuple[bytes, str]]], depth: int) -> Any:
    view = memoryview(raw)
    if len(view) <= THRESHOLD or mode == _WHOLE:
        return orjson.loads(view)
    if depth > MAX_SPLIT_DEPTH:
        raise _Split
    first = view[0]
    if first == 0x7B:  # {
        return _object(raw, _ENTRY if mode == _BATCH else mode, seen, depth)
    if first == 0x5B:  # [
        child = _ENTRY if mode == _BATCH else mode
        return [_value(item, child, seen, depth + 1) for item in _decoder("[").decode(raw)]
    if first == 0x22 and mode == _TEXTS:  # "
        return _stand_in(bytes(view), seen)
    return orjson.loads(view)


def _stand_in(data: bytes, seen: dict[int, list[tuple[bytes, str]]]) -> str:
    """The stand-in of the JSON string `data` (quotes included); equal texts share one."""
    for other, text in seen.get(len(data), ()):
        if other == data:
            return text
    import zlib

    # The head ends before a space and the tail starts after one: a space is never part of an
    # escape or of a multi-byte character, so both ends decode as they read in the whole text.
    cut = data.rfind(b" ", 1, 1 + END_BYTES)
    start = data.find(b" ", len(data) - 1 - END_BYTES, len(data) - 1)
    if cut < 0 or start < 0:
        cut, start = 1, len(data) - 1
    head = orjson.loads(b'"' + data[1:cut] + b'"')
    tail = orjson.loads(b'"' + data[start:-1] + b'"')
    middle = memoryview(data)[cut:start]
    # The CRC-32 of the middle (7 GB/s here; Adler-32 is 4 GB/s, BLAKE2b 1.4 GB/s) beside the
    # length and both ends: a check against accidental equality, as no adversary picks the texts
    # a guard compares for its own agent.
    token = f"{TOKEN}bytes={len(data)} crc={zlib.crc32(middle):08x}\x00"
    text = str(head) + token + str(tail)
    seen.setdefault(len(data), []).append((data, text))
    return text
