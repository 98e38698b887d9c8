"""Call signatures: what makes two calls "the same", and the hashing both signatures and
outcomes (`outcome.py`) share.

- A call signature is the tool name plus the canonical JSON of `tool_input` (keys sorted at every
  depth, compact, UTF-8 kept) after dropping decoy keys such as Claude Code's Bash `description`.
  Claude Code fills in defaults and reorders keys between events (2.1.332 LAB notes), so only the
  canonical form is stable. A `tool_input` that is not an object is compared as given.
- The volatile parts of a result (`duration_ms`, timestamps, `Wall time: 0.3 seconds`) are
  removed by `normalise_text` and the key list here before an outcome is hashed.
"""

try:  # the BLAKE2 module alone: hashlib would also load OpenSSL (+4 ms, +3.5 MiB per hook run)
    from _blake2 import blake2b as blake2b
except ImportError:  # pragma: no cover - Python builds without the bundled BLAKE2
    from hashlib import blake2b
import re
from itertools import islice
from typing import Any, NamedTuple

import orjson

from .shellwords import shell_normal
from .standin import shown

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
    # (a counter's digits bounded: from every word boundary of a long run of digits and dots,
    # an unbounded `[0-9.]+` would scan to the run's end, seconds for a 32 KB "0.0.0…")
    r"|\b[0-9.]{1,32} ?(?:ms|s|sec|seconds?|m|min|minutes?) (?:elapsed|without output|ago|since last output)\b"
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
    # integers of the polling itself, not of the work: epoch seconds or milliseconds near the
    # event's time (`_epoch`), and the number after a poll, attempt or retry counter, a pid or a
    # session id (`_POLL_COUNTER`)
)
#: Seconds either side of the event's time within which a number that reads as epoch seconds (or
#: milliseconds) is a clock of the polling, not its work (`_epoch`): a download's byte count of 1.5
#: to 2 GB reads as one too, and grows on each poll.
EPOCH_WINDOW = 86_400.0
#: Epoch seconds of 2017-2033, every one taken for a clock where the event's time is not known.
_ANY_EPOCH = r"1[5-9]\d{8}"


def _epoch(now: float | None) -> str:
    """The alternative of `_VOLATILE_TEXT` for a number of the polling's own clock, epoch seconds
    or milliseconds, with its fraction (`1796573409.512`): one whose first five digits are those
    of a time within `EPOCH_WINDOW` of `now` (five digits step every 100,000 s, so within one to
    two and a half days of it); any of
    2017-2033 (`_ANY_EPOCH`) when `now` is None or no time of those years (a replay's made-up
    times of a log with none)."""
    if now is None or not 1.5e9 <= now < 2e9:
        return r"|\b" + _ANY_EPOCH + r"(?:\d{3})?(?:\.\d+)?\b"
    heads = sorted({str(int(t))[:5] for t in (now - EPOCH_WINDOW, now, now + EPOCH_WINDOW)})
    return r"|\b(?:" + "|".join(heads) + r")\d{5}(?:\d{3})?(?:\.\d+)?\b"

#: Words of a failure's report (a traceback, a test runner's, npm's); `_FAILURE_VOLATILE` runs only
#: on a text that holds one, so a listing that succeeds keeps what it lists.
_FAILURE_WORDS = ("Traceback", "FAILED", "Error", "npm ERR!", "npm error")
#: What a failure's report names anew on every run of the same failure: a Python object by its
#: address (`<TestClient object at 0x10a755d10>`, not a bare `Writing at 0x0014641f`), pytest's
#: numbered temporary folder (`/tmp/pytest-of-root/pytest-480/`), npm's debug log named after the
#: run's time (`_logs/2026-12-07T07_32_46_019Z-debug-0.log`). A listing that succeeds keeps them:
#: a new backup file or a new set of live objects is news.
_FAILURE_VOLATILE = (
    r"\bat 0x[0-9a-fA-F]{4,16}(?=>)"
    r"|\bpytest-of-[\w.-]{1,64}/pytest-\d+"
    r"|(?<=_logs/)\d{4}-\d{2}-\d{2}T\d{2}_\d{2}_\d{2}_\d{3}Z(?=-debug-\d+\.log)"
)
#: The words before a counter or id of the polling itself (`_POLL_COUNTER`); the pattern runs only
#: on a text that holds one of them (a `str` search costs far less than a regular-expression pass).
#: Not `iteration` or `tick`: those count the work a polled job does (`iteration 1500/10000`, a
#: log that grows by `tick N` lines), and a poll that shows them move is progress.
_POLL_WORDS = ("poll", "attempt", "retr", "pid", "session")
_POLL_COUNTER = (
    r"(?i)\b(?:(?:poll|attempt|retry|retries)s?[\"']?\s?[#:=]?\s?\d+\b"
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
_VOLATILE_FAST = r"(?=[WCOstie0-9.(\tTaD])(?:" + _VOLATILE_TEXT + "{epoch})"


def normalise_text(text: str, now: float | None = None) -> str:
    """Remove volatile fragments (timings, timestamps, run ids, the polling's own counters, and in
    a failure's report what it names anew on every run: `_FAILURE_VOLATILE`) from a result or
    error text. `now` is the event's time (epoch seconds): a number that reads as
    epoch seconds or milliseconds is removed only near it (`_epoch`: the polling's clock), and
    kept elsewhere (a byte count); with no `now`, every such number of 2017-2033 is removed."""
    text = re.compile(_VOLATILE_FAST.replace("{epoch}", _epoch(now))).sub("<t>", text)
    if any(word in text for word in _FAILURE_WORDS):
        text = re.compile(_FAILURE_VOLATILE).sub("<t>", text)
    low = text.lower()
    if any(word in low for word in _POLL_WORDS):
        text = re.compile(_POLL_COUNTER).sub("<t>", text)
    return text


def _feed_text(h: Any, text: str, normalise: bool, now: float | None = None) -> None:
    if normalise and len(text) > 2 * NORMALISE_WINDOW:
        h.update(normalise_text(text[:NORMALISE_WINDOW], now).encode("utf-8", "surrogatepass"))
        end = len(text) - NORMALISE_WINDOW
        for start in range(NORMALISE_WINDOW, end, _CHUNK):
            h.update(text[start : min(end, start + _CHUNK)].encode("utf-8", "surrogatepass"))
        h.update(normalise_text(text[end:], now).encode("utf-8", "surrogatepass"))
        return
    if normalise:
        text = normalise_text(text, now)
    for start in range(0, len(text), _CHUNK):
        h.update(text[start : start + _CHUNK].encode("utf-8", "surrogatepass"))


def _feed(h: Any, value: Any, skip: frozenset[str], normalise: bool, now: float | None = None) -> None:
    """Hash `value` piece by piece (no full serialisation in memory); `skip` drops dict keys;
    `normalise` removes volatile text (`normalise_text`, given `now`)."""
    if isinstance(value, str):
        h.update(b'"')
        _feed_text(h, value, normalise, now)
        h.update(b'"\x1e')
    elif isinstance(value, dict):
        h.update(b"{")
        for key in sorted(value):
            if key in skip:
                continue
            h.update(key.encode("utf-8", "surrogatepass"))
            h.update(b"\x1f")
            _feed(h, value[key], skip, normalise, now)
        h.update(b"}")
    elif isinstance(value, list):
        h.update(b"[")
        for item in value:
            _feed(h, item, skip, normalise, now)
            h.update(b",")
        h.update(b"]")
    else:
        try:
            h.update(orjson.dumps(value))
        except TypeError:  # an integer beyond 64 bits (read by the fallback JSON parser)
            h.update(repr(value).encode())


def _feed_bounded(h: Any, value: Any, skip: frozenset[str], normalise: bool, now: float | None = None) -> None:
    """`_feed`, except for a value of millions of keys or items (no real call or result has
    them): one serialisation in C instead of a Python step per node, so that the answer still
    comes well within the clients' hook timeout."""
    if not _more_nodes_than(value, MAX_FED_NODES):
        _feed(h, value, skip, normalise, now)
        return
    h.update(b"bulk:")
    try:  # in the order given (sorting 2 million keys costs 0.5 s; the same call repeats it as is)
        h.update(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):
        _feed(h, value, skip, normalise, now)


def _shallow(value: Any, limit: int, depth: int = 0) -> Any:
    """`value` with long strings cut and deep or long containers shortened: enough to show the
    first `limit` characters of its JSON without serialising all of it."""
    if isinstance(value, str):
        return shown(value[:limit])  # a big text's stand-in shows its head only (bigtext.py)
    if depth > 8:
        return "…"
    if isinstance(value, dict):
        return {k: _shallow(v, limit, depth + 1) for k, v in islice(value.items(), limit)}
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


#: Containers' entries beyond which a call's input is hashed from its serialisation rather than
#: fed node by node (`_feed` costs ~3 µs a node: 2 million keys took 8 s).
MAX_FED_NODES = 50_000


def _more_nodes_than(value: Any, limit: int) -> bool:
    """True when `value` holds more than `limit` dict entries and list items in all; stops
    counting there, so it costs at most `limit` steps."""
    stack = [value]
    count = 0
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            if count > limit:
                return True
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            count += len(item)
            if count > limit:
                return True
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return False


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
        _feed_bounded(h, shell_normal(tool_name, tool_input), frozenset(), False)
        head = json_head(tool_input, head_chars)
    return CallKey(h.hexdigest(), head)


def call_signature(tool_name: str, tool_input: Any, ignore_args: frozenset[str]) -> str:
    """The signature digest of a call (see `call_key`)."""
    return call_key(tool_name, tool_input, ignore_args, 0).digest
