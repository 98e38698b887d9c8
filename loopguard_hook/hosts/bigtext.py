"""Big payloads: decoded without building their big texts.

A Claude Code `Write` of a 5 MiB file sends that file three times (`tool_input.content`,
`tool_response.content` and `tool_response.originalFile`, 2.1.332 captured payloads): 17 MB of
JSON whose full decode (a Python string per copy, slow for non-ASCII text) costs more than the
rest of the event. The guard never needs those texts whole: it hashes them and quotes their start.

The rule, one for every payload and every path (in-process and resident): inside the objects
and arrays of `tool_input` and `tool_response` (also those of a `PostToolBatch`'s `tool_calls`),
a string whose JSON text is longer than `THRESHOLD` bytes is replaced by a *stand-in*: its
decoded head and tail (about `END_BYTES` of JSON each, cut at a space) around a token that names
its length and a CRC of the JSON bytes between them. A payload of at most `THRESHOLD` bytes holds
no such string, so it is decoded whole (orjson, as before). Two texts have equal stand-ins
exactly when their JSON is equal (one host writes one text one way), so a repeated big `Write` is
still a repeat, its PreToolUse and PostToolUse still pair, and two different contents stay apart;
timing lines in a big output's first or last `END_BYTES` are normalised as in any text. A
`tool_response` that is itself one text (Codex's output) is decoded whole, as is every other
top-level field. What a stand-in's middle holds is not checked for UTF-8; its head and tail are.
The token never reaches the model or a log: `shown` cuts a text there.

The splitting uses msgspec (`Raw` values: a scan, no decoding; the top level and one level
below it in one pass), imported only for a payload over the threshold (4 to 10 ms once in a
process; the resident helper loads it at warm-up). Whatever msgspec refuses, or orjson would read
otherwise (lone surrogate escapes, integers past 64 bits), and a container of more than
`MAX_SPLIT_ENTRIES` entries, is decoded whole instead.
"""

from typing import Any

import orjson

from ..core.standin import TOKEN

#: Strings whose JSON text is longer than this (bytes, quotes included) are stood in for.
THRESHOLD = 1 << 20
#: JSON bytes of a long text decoded at each end (the timing lines of a long output sit there).
END_BYTES = 16384
#: The top-level fields whose big strings are stood in for, and the batch list holding more.
TOOL_FIELDS = frozenset({"tool_input", "tool_response"})
BATCH_FIELD = "tool_calls"
#: Levels of big containers split at most (deeper big payloads are decoded whole).
MAX_SPLIT_DEPTH = 64
#: Entries of one split container at most: a step per entry costs more than orjson's whole
#: decode past this (a `tool_input` of 2 million keys: 2.6 s split, 0.7 s whole), so such a
#: payload, which no real call sends, is decoded whole.
MAX_SPLIT_ENTRIES = 10_000

# How the values under a key are decoded: whole, with stand-ins, or as the batch list / entry.
_WHOLE, _TEXTS, _BATCH, _ENTRY = range(4)


class _Split(Exception):
    """The payload cannot be split here: decode it whole."""


def decode_big(raw: "bytes | memoryview") -> Any:
    """The decoded object of a payload longer than `THRESHOLD`, with stand-ins; None when it is
    not a JSON object that splits cleanly (invalid JSON, lone surrogates, deep nesting): the
    caller then decodes it whole and reports what is wrong exactly as for any payload."""
    import msgspec

    try:
        return _top(raw, {})
    except (_Split, msgspec.DecodeError, msgspec.ValidationError, orjson.JSONDecodeError, RecursionError):
        return None


_DECODERS: dict[str, Any] = {}


def decoders() -> None:
    """Import msgspec and make the decoders now (the resident helper does, at warm-up)."""
    for kind in "{[t":
        _decoder(kind)


def _decoder(kind: str) -> Any:
    decoder = _DECODERS.get(kind)
    if decoder is None:
        import msgspec

        shapes: dict[str, Any] = {
            "{": dict[str, msgspec.Raw],
            "[": list[msgspec.Raw],
            # The top level in one pass: its objects and arrays split one level further (a
            # second scan of `tool_response` would cost as much as the first of the payload).
            "t": dict[str, dict[str, msgspec.Raw] | list[msgspec.Raw] | str | int | float | bool | None],
        }
        decoder = _DECODERS[kind] = msgspec.json.Decoder(shapes[kind])
    return decoder


def _entries(container: Any) -> Any:
    if len(container) > MAX_SPLIT_ENTRIES:
        raise _Split
    return container


def _checked(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escape: the whole decode replaces it
        raise _Split from None
    return text


def _top(raw: Any, seen: dict[tuple[int, int, bytes, bytes], str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in _entries(_decoder("t").decode(raw)).items():
        mode = _TEXTS if _checked(key) in TOOL_FIELDS else _BATCH if key == BATCH_FIELD else _WHOLE
        if isinstance(value, dict):
            child = _TEXTS if mode == _TEXTS else _WHOLE
            out[key] = {_checked(k): _value(v, child, seen, 2) for k, v in _entries(value).items()}
        elif isinstance(value, list):
            child = _ENTRY if mode == _BATCH else mode
            out[key] = [_value(item, child, seen, 2) for item in _entries(value)]
        elif isinstance(value, str):
            out[key] = _checked(value)
        elif isinstance(value, int) and not isinstance(value, bool) and not -(1 << 63) <= value < 1 << 64:
            raise _Split  # orjson reads a longer integer differently (as a float)
        else:
            out[key] = value
    return out


def _object(raw: Any, mode: int, seen: dict[tuple[int, int, bytes, bytes], str], depth: int) -> dict[str, Any]:
    items = _entries(_decoder("{").decode(raw))
    out = {}
    for key, value in items.items():
        _checked(key)
        if mode == _TEXTS or key in TOOL_FIELDS:
            child = _TEXTS
        else:
            child = _WHOLE
        out[key] = _value(value, child, seen, depth + 1)
    return out


def _value(raw: Any, mode: int, seen: dict[tuple[int, int, bytes, bytes], str], depth: int) -> Any:
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
        return [_value(item, child, seen, depth + 1) for item in _entries(_decoder("[").decode(raw))]
    if first == 0x22 and mode == _TEXTS:  # "
        return _stand_in(view, seen)
    return orjson.loads(view)


def _stand_in(data: memoryview, seen: dict[tuple[int, int, bytes, bytes], str]) -> str:
    """The stand-in of the JSON string `data` (quotes included); equal texts share one. No copy
    of the text is made: its ends are copied, its middle is only read by the CRC."""
    import zlib

    # The head ends before a space and the tail starts after one: a space is never part of an
    # escape or of a multi-byte character, so both ends decode as they read in the whole text.
    front = bytes(data[: 1 + END_BYTES])
    back = bytes(data[len(data) - 1 - END_BYTES :])
    cut = front.rfind(b" ", 1)
    at = back.find(b" ", 0, len(back) - 1)
    if cut < 0 or at < 0:
        cut, at = 1, len(back) - 1
    # The CRC-32 of the middle (7 GB/s here; Adler-32 is 4 GB/s, BLAKE2b 1.4 GB/s) beside the
    # length and both ends: a check against accidental equality, as no adversary picks the texts
    # a guard compares for its own agent. The ends are normalised later like any text's.
    middle = zlib.crc32(data[cut : len(data) - len(back) + at])
    key = (len(data), middle, front[:cut], back[at:])
    known = seen.get(key)
    if known is None:
        head = orjson.loads(b'"' + front[1:cut] + b'"')
        tail = orjson.loads(b'"' + back[at:-1] + b'"')
        known = seen[key] = str(head) + f"{TOKEN}bytes={len(data)} crc={middle:08x}\x00" + str(tail)
    return known
