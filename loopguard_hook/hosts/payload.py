"""Parse one hook payload (the JSON a client writes to the hook's stdin) into a `HookEvent`.

Client facts used here (see README, "Client facts"):

- Claude Code 2.1.332 and Codex 0.171.0 both send one JSON object with `hook_event_name`,
  `session_id`, `cwd` and `transcript_path`; subagent calls carry the parent's `session_id` plus
  their own `agent_id` (captured payloads `PreToolUse.Read.subagent.json`; Codex probe P20).
- Which client sent a payload is told by `clients.detect_client` (each client module knows
  its own payloads).
- Clients add fields every release, so unknown keys are ignored.
"""

from typing import Any

import orjson

from ..core.event import MAIN_AGENT, TOOL_EVENTS, BatchCall, Client, HookEvent
from ..core.signature import blake2b
from . import bigtext

MAX_ID_CHARS = 128
#: Entries of a `PostToolBatch` examined; the rest are ignored.
MAX_BATCH_CALLS = 256
#: A session id is stored whole up to this many characters (it is stored once per ledger and
#: audit line); a longer one (a few MB, from a broken client) keeps a head and a digest.
MAX_SESSION_ID_CHARS = 16384


#: The key a host's `normalise` sets (True) on a UserPromptSubmit that is its tool continuation,
#: not the user's words (Qwen Code); no host sends it. It becomes `HookEvent.continuation`.
CONTINUATION = "loopguard_continuation"


class PayloadError(ValueError):
    """The payload is not a hook payload the guard can read (one stderr line, exit 1)."""


def _as_text(value: Any) -> str:
    """A non-string value as JSON text; `repr` for what orjson cannot write (an integer past 64
    bits, which the standard parser accepts when orjson could not parse the payload)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)[:10000]


def bounded_id(text: str, limit: int = MAX_ID_CHARS) -> str:
    """`text` when it has at most `limit` characters, else its first 64 characters, `~` and 32
    hex digits of its hash (97 characters): distinct ids stay distinct, none grows the state."""
    if len(text) <= limit:
        return text
    digest = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"{text[:64]}~{digest}"


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise PayloadError(f"field {key!r} must be a string, got {type(value).__name__}")


def _mode(value: Any) -> str | None:
    """`permission_mode`, a field the guard only compares: any other type is as good as none."""
    return value[:MAX_MODE_CHARS] if isinstance(value, str) else None


#: A permission mode's longest name is 17 characters (`bypassPermissions`).
MAX_MODE_CHARS = 32


def _req_str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        got = "missing" if value is None else type(value).__name__
        raise PayloadError(f"field {key!r} must be a string ({got})")
    return value


def _opt_bool(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise PayloadError(f"field {key!r} must be a boolean, got {type(value).__name__}")
    return value


def _decode_with_lone_surrogates(raw: bytes, error: Exception) -> Any:
    """JSON text with a lone `\\ud800`-style escape: valid JSON that a JavaScript client can emit
    from a cut string, which orjson refuses. Parse it with the standard library and replace each
    lone surrogate with `?`, so every later step sees ordinary text.

    Raises:
        PayloadError: the input is not valid JSON or not UTF-8 after all.
    """
    import json

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"payload is not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 4]!r})") from None
    try:
        data = json.loads(text)
        if nesting_depth(data) > MAX_DEPTH:
            raise PayloadError(f"payload nests too deeply (at most {MAX_DEPTH} levels)")
        return _clean(data)
    except (ValueError, RecursionError):
        raise PayloadError(f"payload is not valid JSON: {error}") from None


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def json_lines(raw: bytes) -> bool:
    """Whether `raw` is several JSON lines (a JSONL file, a transcript, piped in): its first line a
    JSON object and the next line that is not blank the start of another (`raw` may be only the
    first bytes of the input, its second line cut)."""
    first, newline, rest = raw.lstrip().partition(b"\n")
    if not newline or not rest.lstrip().startswith(b"{"):
        return False
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def decode(raw: bytes | memoryview) -> dict[str, Any]:
    """Decode stdin bytes into the payload object (a memoryview: a mapped file's, from the
    resident helper).

    A leading UTF-8 byte-order mark is tolerated (payload files saved by Windows editors).

    Raises:
        PayloadError: empty input, invalid UTF-8 or JSON, nesting deeper than the parser allows,
            or a JSON value that is not an object.
    """
    if raw[:3] == b"\xef\xbb\xbf":
        raw = raw[3:]
    # Over the threshold, big texts of tool calls are not built (bigtext.py); a payload that does
    # not split cleanly is decoded whole, so its error reads as for any payload.
    data = bigtext.decode_big(raw) if len(raw) > bigtext.THRESHOLD else None
    if data is None:
        raw = bytes(raw)  # the same object when it is bytes already
        if not raw or raw.isspace():
            raise PayloadError("empty payload on stdin (expected one hook JSON object)")
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            if "unexpected content after document" in str(exc) and json_lines(raw):
                raise PayloadError(
                    f"payload is not valid JSON: {exc}: several JSON lines on stdin, and the hook reads one "
                    "payload per event (for a file of payloads or a transcript: `loopguard-hook replay FILE`)"
                ) from None
            if "surrogate" not in str(exc):
                raise PayloadError(f"payload is not valid JSON: {exc}") from None
            data = _decode_with_lone_surrogates(raw, exc)
    if not isinstance(data, dict):
        raise PayloadError(f"payload must be a JSON object, got {type(data).__name__}")
    depth = nesting_depth(data)
    if depth > MAX_DEPTH:
        # orjson reads 1,024 levels but writes only 254, and the guard hashes and quotes
        # `tool_input` and `tool_response`: refuse here what it could not handle later.
        raise PayloadError(f"payload nests too deeply ({depth} levels; at most {MAX_DEPTH})")
    return data


MAX_DEPTH = 254  # what orjson can write back


def json_text(text: str) -> Any:
    """The value a JSON text inside a payload holds (Copilot's `toolArgs`, Cursor's `tool_output`),
    or the text itself when it is not JSON or nests deeper than a payload may (`MAX_DEPTH`, less
    the levels it sits under): such a text is not checked with the payload, and the guard hashes
    what it holds by recursion."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    return text if nesting_depth(value) > MAX_DEPTH - _TEXT_LEVELS else value


#: Levels above a JSON text's value once it is put in the payload (`tool_input` / `tool_response`
#: and the host's own wrapping), with a margin.
_TEXT_LEVELS = 8


def nesting_depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (iterative; strings are not walked)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def event_name(data: dict[str, Any]) -> str:
    """Return `hook_event_name`.

    Raises:
        PayloadError: the field is missing or not a string.
    """
    return _req_str(data, "hook_event_name")


def refuse_wrapped(data: Any) -> None:
    """Refuse a capture that wraps the payload a host sent under `payload`, next to how it ran
    (`{"run": …, "payload": …, "env": …}`), saying to send that object; before any host's own
    shape is read, so every host's refusal says so.

    Raises:
        PayloadError: `data` has no `hook_event_name` and holds an object that has one under
            `payload`.
    """
    wrapped = data.get("payload") if isinstance(data, dict) and "hook_event_name" not in data else None
    if isinstance(wrapped, dict) and isinstance(wrapped.get("hook_event_name"), str):
        raise PayloadError(
            "field 'hook_event_name' is missing here but present under 'payload': this is a capture that wraps the "
            "payload the host sent; send that object (jq -c .payload FILE)"
        )


def parse(data: dict[str, Any], client: Client) -> HookEvent:
    """Turn a decoded payload of a handled event into a `HookEvent`.

    Raises:
        PayloadError: a field the guard needs is missing or has the wrong type.
    """
    event = event_name(data)
    # Ids are stored (ledger keys, audit log, status): a long one keeps a readable head.
    session_id = bounded_id(_req_str(data, "session_id"), MAX_SESSION_ID_CHARS)
    agent_id = bounded_id(_opt_str(data, "agent_id") or MAIN_AGENT)
    common: dict[str, Any] = {
        "event": event,
        "client": client,
        "session_id": session_id,
        "agent_id": agent_id,
        "cwd": _opt_str(data, "cwd"),
        "transcript_path": _opt_str(data, "transcript_path"),
        "turn_id": _opt_str(data, "turn_id"),
        "permission_mode": _mode(data.get("permission_mode")),
    }
    if event in TOOL_EVENTS:
        common["tool_name"] = _req_str(data, "tool_name")
        common["tool_input"] = data.get("tool_input")
        common["tool_use_id"] = _opt_str(data, "tool_use_id")
        if event == "PostToolUse":
            common["tool_response"] = data.get("tool_response")
        elif event == "PostToolUseFailure":
            error = data.get("error")
            common["error"] = error if isinstance(error, str) else _as_text(error)
            common["is_interrupt"] = _opt_bool(data, "is_interrupt")
    elif event == "PostToolBatch":
        calls = data.get("tool_calls")
        if not isinstance(calls, list):
            raise PayloadError("field 'tool_calls' must be a list")
        batch = []
        # Only the first entries are examined: a batch is one model response's parallel calls
        # (tens at most), and 100,000 of them took a minute, past the clients' hook timeout.
        for item in calls[:MAX_BATCH_CALLS]:
            if not isinstance(item, dict):
                raise PayloadError("each entry of 'tool_calls' must be an object")
            batch.append(
                BatchCall(
                    tool_name=_req_str(item, "tool_name"),
                    tool_input=item.get("tool_input"),
                    tool_use_id=_opt_str(item, "tool_use_id"),
                    tool_response=item.get("tool_response"),
                )
            )
        common["tool_calls"] = tuple(batch)
    elif event == "UserPromptSubmit":
        common["prompt"] = _opt_str(data, "prompt")
        common["continuation"] = data.get(CONTINUATION) is True
    elif event == "SessionStart":
        common["source"] = _opt_str(data, "source")
    elif event in ("Stop", "SubagentStop"):
        common["last_assistant_message"] = _opt_str(data, "last_assistant_message")
        common["stop_hook_active"] = _opt_bool(data, "stop_hook_active")
        common["agent_transcript_path"] = _opt_str(data, "agent_transcript_path")
    return HookEvent(**common)
