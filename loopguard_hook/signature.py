"""Call signatures and outcome fingerprints: what makes two calls "the same" and two results "equal".

- A call signature is the tool name plus the canonical JSON of `tool_input` (keys sorted at every
  depth, compact, UTF-8 kept) after dropping decoy keys such as Claude Code's Bash `description`.
  Claude Code fills in defaults and reorders keys between events (2.1.332 LAB notes), so only the
  canonical form is stable. A `tool_input` that is not an object is compared as given.
- An outcome fingerprint is a short digest of the normalised `tool_response` (or failure text):
  volatile keys (`duration_ms`, timestamps) and volatile text (`Wall time: 0.3 seconds`,
  `took 12ms`, `in 0.12s`) are removed first, so a result that differs only in timing is equal.
  Responses are never stored, only digests and a short preview.
"""

try:  # the BLAKE2 module alone: hashlib would also load OpenSSL (+4 ms, +3.5 MiB per hook run)
    from _blake2 import blake2b as blake2b
except ImportError:  # pragma: no cover - Python builds without the bundled BLAKE2
    from hashlib import blake2b
import re
from typing import Any, NamedTuple

import orjson

from .shellwords import shell_normal

_SORT = orjson.OPT_SORT_KEYS

#: Keys whose values change on every run without saying anything about the result.
VOLATILE_KEYS = frozenset(
    {
        "duration_ms",
        "durationMs",
        "totalDurationMs",
        "duration",
        "elapsed",
        "elapsed_ms",
        "elapsedMs",
        "timestamp",
        "timestamps",
        "startedAt",
        "started_at",
        "finishedAt",
        "finished_at",
        "completedAt",
        "persistedOutputPath",
        "usage",
        "totalTokens",
        "resolvedModel",
        # the polling's own ids and counters (a running command's session and pid, a retry's
        # attempt number): a poll that changes only these is the same poll
        "pid",
        "sessionId",
        "session_id",
        "attempt",
        "checked_at",
        "checkedAt",
    }
)

# One pass over the text; each alternative is a timing or run-id fragment that varies between
# identical runs (Codex exec headers, pytest/cargo summaries, ISO timestamps, elapsed counters).
_VOLATILE_TEXT = (
    r"Wall time: [0-9.]+ ?(?:seconds?|s|ms)?"
    r"|Chunk ID: \w+"
    r"|Original token count: \d+"
    r"|session ID \d+"
    r"|\btook [0-9.]+ ?(?:ms|s|sec|secs|seconds?)\b"
    r"|\bin [0-9.]+ ?(?:ms|s|sec|seconds?)\b"
    r"|\b[0-9.]+ ?(?:ms|s|sec|seconds?|m|min|minutes?) (?:elapsed|without output|ago|since last output)\b"
    r"|\belapsed:? [0-9.:]+ ?(?:ms|s)?"
    r"|\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
    # a clock time with seconds on its own: HTTP `Date:` headers, `[00:01:15]` log prefixes,
    # `00:00:07 waiting` elapsed counters
    r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"
    # test runners and HTTP clients: mocha "(12ms)", go "(0.00s)" and "\t0.013s", jest
    # "Time: 1.234 s", curl "after 3 ms", "Duration: 2.1s"
    r"|\([0-9.]+ ?(?:ms|s)\)"
    r"|\t[0-9]+\.[0-9]+s\b"
    r"|Time: +[0-9.]+ ?(?:ms|s)\b"
    r"|after [0-9]+ ms\b"
    r"|Duration:? [0-9.]+ ?(?:ms|s)\b"
    # integers of the polling itself, not of the work: epoch seconds or milliseconds
    # (2017-2033), and the number after a poll, attempt or retry counter, a pid or a session id
    r"|\b1[5-9]\d{8}(?:\d{3})?\b"
)

#: The words before a counter or id of the polling itself (`_POLL_COUNTER`); the pattern runs only
#: on a text that holds one of them (a `str` search costs far less than a regular-expression pass).
_POLL_WORDS = ("poll", "attempt", "retr", "iteration", "tick", "pid", "session")
_POLL_COUNTER = (
    r"(?i)\b(?:(?:poll|attempt|retry|retries|iteration|tick)s?[\"']?\s?[#:=]?\s?\d+\b"
    r"|pid[\"']?\s?[:= ]\s?\d+\b"
    r"|session(?:[ _-]?id)?[\"']?\s?[:= ]\s?[\"']?[\w-]*\d[\w-]*)"
)

_DIGEST_BYTES = 8


def canonical_json(value: Any) -> bytes:
    """Compact JSON with keys sorted at every depth; non-ASCII kept as UTF-8."""
    return orjson.dumps(value, option=_SORT)


def digest(data: bytes) -> str:
    """A 16-hex-character BLAKE2b digest (collisions are irrelevant at session scale)."""
    return blake2b(data, digest_size=_DIGEST_BYTES).hexdigest()


#: Characters of a long text normalised at each end; the middle is hashed as it is. Timing lines
#: sit in headers and footers (Codex `Wall time:`, test summaries), and a regular-expression pass
#: over a whole 5 MB file would cost seconds per call.
NORMALISE_WINDOW = 16384
_CHUNK = 1 << 20

# The first character every volatile fragment can start with, checked before the alternation:
# five times faster than letting every branch try every position. The patterns of this module
# are strings, compiled on first use through `re`'s own cache: a PreToolUse needs none of them,
# and compiling them all at import cost more than the rest of the event.
_VOLATILE_FAST = r"(?=[WCOstie0-9.(\tTaD])(?:" + _VOLATILE_TEXT + ")"


def normalise_text(text: str) -> str:
    """Remove volatile fragments (timings, timestamps, run ids, the polling's own counters) from
    a result or error text."""
    text = re.compile(_VOLATILE_FAST).sub("<t>", text)
    low = text.lower()
    if any(word in low for word in _POLL_WORDS):
        text = re.compile(_POLL_COUNTER).sub("<t>", text)
    return text



def _feed_text(h: Any, text: str, normalise: bool) -> None:
    if normalise and len(text) > 2 * NORMALISE_WINDOW:
        h.update(normalise_text(text[:NORMALISE_WINDOW]).encode("utf-8", "surrogatepass"))
        end = len(text) - NORMALISE_WINDOW
        for start in range(NORMALISE_WINDOW, end, _CHUNK):
            h.update(text[start : min(end, start + _CHUNK)].encode("utf-8", "surrogatepass"))
        h.update(normalise_text(text[end:]).encode("utf-8", "surrogatepass"))
        return
    if normalise:
        text = normalise_text(text)
    for start in range(0, len(text), _CHUNK):
        h.update(text[start : start + _CHUNK].encode("utf-8", "surrogatepass"))


def _feed(h: Any, value: Any, skip: frozenset[str], normalise: bool) -> None:
    """Hash `value` piece by piece (no full serialisation in memory); `skip` drops dict keys."""
    if isinstance(value, str):
        h.update(b'"')
        _feed_text(h, value, normalise)
        h.update(b'"\x1e')
    elif isinstance(value, dict):
        h.update(b"{")
        for key in sorted(value):
            if key in skip:
                continue
            h.update(key.encode("utf-8", "surrogatepass"))
            h.update(b"\x1f")
            _feed(h, value[key], skip, normalise)
        h.update(b"}")
    elif isinstance(value, list):
        h.update(b"[")
        for item in value:
            _feed(h, item, skip, normalise)
            h.update(b",")
        h.update(b"]")
    else:
        try:
            h.update(orjson.dumps(value))
        except TypeError:  # an integer beyond 64 bits (read by the fallback JSON parser)
            h.update(repr(value).encode())


def _shallow(value: Any, limit: int, depth: int = 0) -> Any:
    """`value` with long strings cut and deep or long containers shortened: enough to show the
    first `limit` characters of its JSON without serialising all of it."""
    if isinstance(value, str):
        return value[:limit]
    if depth > 8:
        return "…"
    if isinstance(value, dict):
        return {k: _shallow(v, limit, depth + 1) for k, v in list(value.items())[:limit]}
    if isinstance(value, list):
        return [_shallow(v, limit, depth + 1) for v in value[:limit]]
    return value


def json_head(value: Any, limit: int) -> str:
    """The first `limit` characters of the canonical JSON of `value`."""
    try:
        text = orjson.dumps(_shallow(value, limit + 1), option=_SORT).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        text = repr(value)[: limit + 1]
    return text[: limit + 1]


class CallKey(NamedTuple):
    """A call's signature: `digest` identifies it, `head` is the start of its canonical arguments
    (at least `HEAD_CHARS` characters when the arguments are that long) for messages."""

    digest: str
    head: str


HEAD_CHARS = 1000


def call_key(tool_name: str, tool_input: Any, ignore_args: frozenset[str], head_chars: int = HEAD_CHARS) -> CallKey:
    """The signature of a call: `tool_name` + canonical `tool_input` minus decoy keys, with a shell
    tool's command line in `shell_words` form (spacing and quoting style do not split a count).

    Hashed piece by piece, so a 5 MB `Write` costs no 5 MB serialisation. A `tool_input` that is
    not an object (a string, from a malformed call) is compared as given.
    """
    h = blake2b(digest_size=_DIGEST_BYTES)
    h.update(tool_name.encode("utf-8", "surrogatepass") + b"\0")
    skip = ignore_args if isinstance(tool_input, dict) else frozenset()
    if isinstance(tool_input, dict) and skip and not skip.isdisjoint(tool_input):
        tool_input = {k: v for k, v in tool_input.items() if k not in skip}
    if isinstance(tool_input, str):
        h.update(b"raw:")
        _feed_text(h, tool_input, False)
        head = tool_input[: head_chars + 1]
    else:
        _feed(h, shell_normal(tool_name, tool_input), frozenset(), False)
        head = json_head(tool_input, head_chars)
    return CallKey(h.hexdigest(), head)


def call_signature(tool_name: str, tool_input: Any, ignore_args: frozenset[str]) -> str:
    """The signature digest of a call (see `call_key`)."""
    return call_key(tool_name, tool_input, ignore_args, 0).digest


#: Whole-file copies in Claude Code's Write/Edit responses (`content`, `originalFile`; 2.1.332
#: captured payloads): a mutation's outcome is told by its path, type and patch, and hashing two
#: more copies of a 5 MB file would double the cost of the call.
FILE_BODY_KEYS = frozenset({"content", "originalFile"})


def outcome_fingerprint(response: Any, *, mutation: bool = False) -> str:
    """Digest of a normalised `tool_response` or error text: volatile keys dropped, volatile text
    removed (within `NORMALISE_WINDOW` characters of each end of long texts). For a mutation the
    file bodies are left out (`FILE_BODY_KEYS`)."""
    h = blake2b(digest_size=_DIGEST_BYTES)
    skip = VOLATILE_KEYS
    if mutation and isinstance(response, dict):
        skip = VOLATILE_KEYS | FILE_BODY_KEYS
        bodies = [response.get(key) for key in sorted(FILE_BODY_KEYS)]
        # What the bodies say without hashing them: their sizes, and whether anything changed.
        h.update(repr([len(b) if isinstance(b, str) else None for b in bodies]).encode())
        h.update(b"unchanged" if bodies[0] == bodies[1] else b"changed")
    _feed(h, response, skip, True)
    return h.hexdigest()


def result_text(response: Any, limit: int = 4000) -> str:
    """The human part of a `tool_response` (at least its first `limit` characters), for previews
    quoted back to the model.

    Claude Code Read gives `{"file": {"content"}}`, Bash `{"stdout", "stderr"}`
    (2.1.332 captured payloads); Codex gives a plain string; MCP gives a content list.
    """
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return str(file["content"])
        if "stdout" in response or "stderr" in response:
            out = str(response.get("stdout") or "")
            err = str(response.get("stderr") or "")
            return out + ("\n" + err if err else "")
        content = response.get("content")
        if isinstance(content, list):
            return _content_text(content)
    if isinstance(response, list):
        return _content_text(response)
    return json_head(response, limit)


def _content_text(items: list[Any]) -> str:
    parts = [str(i.get("text")) for i in items if isinstance(i, dict) and "text" in i]
    return "\n".join(parts) if parts else json_head(items, 4000)


def preview(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with a marker when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


# -- failures ---------------------------------------------------------------------------------

_EXIT_CODE = r"^(?:Exit code:? |Process exited with code )(-?\d+)"

# Codex 0.171.0 PostToolUse gives Bash output as plain text with no exit code
# (openai/codex#34289; captured `PostToolUse__Bash__failed.json`), so a failure can only be
# inferred from what shells and common tools print when they fail.
_FAILURE_TEXT = (
    r"command not found"
    r"|No such file or directory"
    r"|Permission denied"
    r"|Operation not permitted"
    r"|^Traceback \(most recent call last\):"
    r"|^fatal: "
    r"|^error(?:\[E\d+\])?: "
    r"|^Error: "
    r"|cannot access '"
    r"|\bsyntax error\b"
    # Codex's own apply_patch and sandbox refusals (rollouts of Codex 0.4x-0.5x in the corpus)
    r"|verification failed|Failed to find expected lines|sandbox denied|failed in sandbox"
)


class Failure:
    """How sure the guard is that a call failed."""

    NONE = 0
    #: Inferred from output text only (Codex shell output with no exit code): counted for the
    #: same-error rule, but a changed text still counts as new evidence.
    SOFT = 1
    #: Reported by the client: `PostToolUseFailure`, `<tool_use_error>`, `is_error`/`isError`,
    #: or an `Exit code: N` line with N != 0.
    HARD = 2


class Outcome(NamedTuple):
    """What the guard keeps of one call's result."""

    fingerprint: str
    failure: int
    text: str


def classify_response(tool_name: str, response: Any) -> int:
    """Failure level of a `PostToolUse` `tool_response` (see `Failure`)."""
    if isinstance(response, dict):
        if response.get("is_error") is True or response.get("isError") is True:
            return Failure.HARD
        return Failure.NONE
    if isinstance(response, str):
        head = response[:4096]
        if "<tool_use_error>" in head:
            return Failure.HARD
        match = re.compile(_EXIT_CODE, re.MULTILINE).search(head)
        if match:
            return Failure.HARD if match.group(1) != "0" else Failure.NONE
        tail = response[-4096:] if len(response) > 8192 else response
        if tool_name == "Bash" and re.compile(_FAILURE_TEXT, re.MULTILINE).search(tail):
            return Failure.SOFT
    return Failure.NONE


def outcome_of_response(tool_name: str, response: Any, *, mutation: bool = False) -> Outcome:
    """Fingerprint, failure level and human text of a `tool_response`."""
    return Outcome(
        fingerprint=outcome_fingerprint(response, mutation=mutation),
        failure=classify_response(tool_name, response),
        text=result_text(response),
    )


def outcome_of_error(error: str) -> Outcome:
    """A `PostToolUseFailure` `error` text (Claude Code 2.1.332) as an outcome."""
    return Outcome(fingerprint=outcome_fingerprint(error), failure=Failure.HARD, text=error)


_DEFERRED_HINT = r"\n+This tool's input schema was not in your prompt.*"
_PATHS = r"(?:/[\w.@+-]+)+/?"
_NUMBERS = r"\d+"


def error_signature(text: str) -> str:
    """Digest of an error with paths, numbers and client hints removed.

    Used by the same-error rule: the same tool failing with the same error under different
    arguments (a sandbox or permission wall). Claude Code appends a long hint to first calls of
    deferred tools (2.1.332 notes), so it is removed too.
    """
    text = re.compile(_DEFERRED_HINT, re.DOTALL).sub("", text[:2000])
    text = re.compile(_PATHS).sub("<p>", normalise_text(text))
    return digest(re.compile(_NUMBERS).sub("<n>", text).strip().encode("utf-8", "surrogatepass"))
