"""The hook path: payload bytes in, decision bytes out, one exit code decided here.

This module imports neither click nor platformdirs (the state directory is resolved lazily), so
the console script can run the hook without paying for them on every tool call.

Exit codes (both clients read exit 2 as "block", so it is never used): 0 with the decision on
stdout, or 1 with one line on stderr and nothing on stdout. On exit 1 both clients let the tool
run (fail open) and tell the user the hook failed (Claude Code 2.1.332 and Codex 0.171.0 notes).
On a host that reads a failure as a denial (Copilot CLI, Cursor) or shows its stderr to the model
(Droid) there is no exit 1: the line goes to `errors.log` instead (`run`, `quiet_client`).
"""

import enum
import os
import time
from collections.abc import Callable, Mapping
from typing import NamedTuple

import orjson

from . import hosts
from .config import load as config_mod
from .core import engine
from .core.event import HANDLED_EVENTS, Client, HookEvent, Unhooked
from .core.ledger import ResponseRecord, Session, Tail
from .core.messages import fit
from .core.redact import redact
from .hosts import detect_client, workspace
from .hosts.payload import PayloadError, decode, event_name, parse, refuse_wrapped
from .hosts.render import render
from .rules.text_loops import cursor, reads
from .rules.unhooked import cursor as unhooked_cursor
from .store import LockTimeout, StateError, Store, default_state_dir, location


class Exit(enum.IntEnum):
    """Hook exit codes. There is deliberately no 2."""

    OK = 0
    FAILED = 1


class HookOptions(NamedTuple):
    """Command-line options of the hook. None means "not given"."""

    client: str = "auto"
    profile: str | None = None
    config: str | None = None
    state_dir: str | None = None
    mode: str | None = None
    dry_run: bool = False
    #: The hook event, for a host whose payloads do not name it (Copilot's own hook files).
    event: str | None = None


class HookResult(NamedTuple):
    """What the process prints and returns. `stderr` is at most a few lines, never a traceback."""

    stdout: bytes = b""
    stderr: str = ""
    exit_code: Exit = Exit.OK
    decision: engine.Decision | None = None
    event: HookEvent | None = None


AUDIT_LOG = "decisions.jsonl"
#: What the model did after each intervention (`followup.py`), for `stats`.
RESPONSES_LOG = "responses.jsonl"
ERROR_LOG = "errors.log"


def resolve_client(option: str, data: dict[str, object]) -> Client:
    """`--client auto`: the client whose module recognises the payload (`hosts.detect_client`:
    a DSH bridge by its session log, Codex by `turn_id` or a rollout path, Cursor, Copilot CLI and
    Droid by their own fields or paths, else Claude Code)."""
    if option == "auto":
        return detect_client(data)
    return Client(option)


def run(
    raw: bytes | memoryview,
    *,
    options: HookOptions,
    environ: Mapping[str, str],
    clock: Callable[[], float] = time.time,
    user_config: str | None = None,
) -> HookResult:
    """Handle one hook payload. Never raises; unexpected errors are logged to `errors.log`.

    `raw` is the payload as read from stdin (a memoryview: a mapped file's, from the resident
    helper). `user_config` overrides the user config file path (None = the platform default).

    On a host that reads a failing hook as a denial, or shows its stderr to the model
    (`quiet_client`), every answer is exit 0 with nothing on stderr: a problem goes to
    `errors.log` instead, and a failure prints nothing.
    """
    seen: list[Client] = []
    result = _run(raw, options, environ, clock, user_config, seen)
    if result.exit_code == Exit.OK and not result.stderr:
        return result
    quiet = quiet_client(options.client, environ, seen[-1] if seen else None)
    if quiet is None:
        return result
    if not result.stderr.startswith(_BUG):  # a bug's traceback is in errors.log already
        log_problem(options, environ, result.stderr, quiet)
    return result._replace(stdout=result.stdout if result.exit_code == Exit.OK else b"", stderr="", exit_code=Exit.OK)


def quiet_client(
    option: str, environ: Mapping[str, str], detected: Client | None = None, head: bytes = b""
) -> Client | None:
    """The host whose failures must end with exit 0 and nothing on stderr (its capability table's
    `failures_exit_0`), or None. The host is the one the payload named (`detected`), else the
    command line's `--client`, else the one the environment names (`hosts.client_from_environment`),
    else the one the payload's first bytes `head` name (`hosts.client_from_head`: the payload may
    not have been parsed)."""
    client = detected
    if client is None and option != "auto":
        try:
            client = Client(option)
        except ValueError:
            client = None
    if client is None:
        client = hosts.client_from_environment(environ) or hosts.client_from_head(head)
    if client is None or client not in hosts.CLIENTS:
        return None
    return client if hosts.capabilities(client).failures_exit_0 else None


def _run(
    raw: bytes | memoryview,
    options: HookOptions,
    environ: Mapping[str, str],
    clock: Callable[[], float],
    user_config: str | None,
    seen: list[Client],
) -> HookResult:
    """`run` before its answer is fitted to the host; the host told by the payload goes in `seen`."""
    store: Store | None = None
    event: HookEvent | None = None
    try:
        data = decode(raw)
        del raw  # the parsed payload is all that is needed now
        refuse_wrapped(data)
        client = resolve_client(options.client, data)
        seen.append(client)
        # A host's own payload shape, as the fields the guard reads (`hosts/<host>.py`).
        data = hosts.dialect(client).normalise(data, options.event)
        name = event_name(data)
        if name not in HANDLED_EVENTS:
            return HookResult()
        if options.client == "auto" and client in _BORROWING and hosts.borrowed(client, _cwd_of(data), environ):
            return HookResult()  # Claude Code's copy, run by a host that runs the guard's own copy too
        event = parse(data, client)
        flags = {"profile": options.profile, "mode": options.mode}
        resolved = config_mod.load(
            environ=environ, cwd=event.cwd, config_path=options.config, flags=flags,
            user_path=_user_config_path() if user_config is None else user_config,
        )
        cfg = resolved.config
        caps = hosts.capabilities(event.client)
        where = location.choose(options.state_dir, environ, event.cwd, dsh=caps.workspace_state)
        store = _open_store(where, cfg, dry_run=options.dry_run)
        now = clock()
        if cfg.workspace_evidence and event.event in workspace.EVENTS:
            seen_files = workspace.snapshot_files(event, cfg)
            event = event._replace(
                workspace=seen_files.digest, workspace_files=seen_files.files, workspace_edits=seen_files.edits,
                misfit=workspace.misfit(event, cfg),
            )
        try:
            result = _decide(store, event, cfg, now, dry_run=options.dry_run)
        except StateError as exc:
            # The user cache dir cannot be written (a sandboxed hook, a read-only home): the
            # event's workspace instead. Nothing was committed to the first store.
            if where.kind != "default" or isinstance(exc, LockTimeout) or not location.unwritable(where.root, str(exc)):
                raise
            if not where.fallback:  # and no workspace the guard may use: it stays off
                raise StateError(f"{exc}; and no workspace folder: {where.refused}") from None
            store = _open_store(location.workspace_location(where.fallback), cfg, dry_run=options.dry_run)
            result = _decide(store, event, cfg, now, dry_run=options.dry_run)
        if event.event == "SessionStart" and cfg.idle_session_seconds and not options.dry_run:
            collect_idle(store, cfg.idle_session_seconds)
        return result._replace(stderr=one_line(result.stderr)) if "\n" in result.stderr else result
    except PayloadError as exc:
        return HookResult(stderr=f"loopguard-hook: bad payload: {flat(str(exc))}", exit_code=Exit.FAILED)
    except config_mod.ConfigError as exc:
        line = f"loopguard-hook: bad config: {flat(str(exc))}"
        if event is not None and config_mod.paused_here(environ, event.cwd, user_config):
            # Paused: the host sees nothing of the guard (`loopguard-hook pause`), not even this.
            log_problem(options, environ, line, event.client)
            return HookResult()
        return HookResult(stderr=line, exit_code=Exit.FAILED)
    except StateError as exc:
        return HookResult(stderr=f"loopguard-hook: state: {flat(str(exc))}", exit_code=Exit.FAILED)
    except Exception as exc:  # a bug: log it, fail open
        return HookResult(stderr=log_bug(store, environ, options, exc), exit_code=Exit.FAILED)


#: The longest quote of a config, payload or state problem in the one stderr line (characters).
MAX_QUOTE_CHARS = 2000


def flat(text: str) -> str:
    """`text` as part of the one stderr line: line breaks and every other character that is not
    printable (controls, C1, bidi marks) written as escapes (`\\n`, `\\u202e`), and cut at
    `MAX_QUOTE_CHARS` (a 100 KB value in a config file, a 10,000-character key)."""
    shown: list[str] = []
    size = 0
    for c in text:
        piece = c if c.isprintable() else repr(c)[1:-1]
        size += len(piece)
        if size > MAX_QUOTE_CHARS:  # cut between characters, never inside an escape
            return "".join(shown) + "…"
        shown.append(piece)
    return "".join(shown)


def one_line(stderr: str) -> str:
    """Several stderr lines of one event (the audit log and the responses log both failing: a
    full disk) as the one line an exit gets: `loopguard-hook: a; b`."""
    parts = [line.removeprefix("loopguard-hook: ") for line in stderr.split("\n") if line.strip()]
    return "loopguard-hook: " + "; ".join(dict.fromkeys(parts)) if parts else ""


#: Hosts that run Claude Code's settings and may have the guard's own registration as well.
_BORROWING = frozenset({Client.COPILOT, Client.CURSOR})


def _cwd_of(data: dict[str, object]) -> str | None:
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) else None


def collect_idle(store: Store, idle_seconds: float, *, now: Callable[[], float] = time.time) -> list[str]:
    """Delete the sessions idle for more than `idle_seconds`; the stems deleted.

    Run at each SessionStart: sessions that never send SessionEnd (DSH's bridges never do; a
    killed client) would otherwise stay until `gc`. It is `Store.gc`, under the same locks (a
    session a hook is updating is kept), and it writes no file of its own. Wall-clock time, as
    it is compared with file times. Never raises: a failed scan waits for the next SessionStart.
    """
    try:
        return store.gc(idle_seconds, now())
    except OSError:
        return []


def _open_store(where: location.Location, cfg: config_mod.Config, *, dry_run: bool) -> Store:
    """The state store at `where`; a workspace folder is created (or checked) first.

    Raises:
        StateError: the workspace folder is a symlink, another user's, or not private.
    """
    if where.kind == "workspace":
        if not dry_run:
            location.ensure_workspace(where.root)
        else:
            problem = location.inspect_workspace(where.root) if os.path.lexists(where.root) else ""
            if problem:
                raise StateError(f"{where.root} {problem}; not using it (set LOOPGUARD_STATE_DIR)")
    return Store(where.root, lock_timeout=cfg.lock_timeout_seconds, audit_max_bytes=cfg.audit_log_max_bytes)


def _user_config_path() -> str:
    """The user config file, or "" (none to read) when there is no home directory to find it in."""
    try:
        return config_mod.user_config_path()
    except (KeyError, RuntimeError, OSError):  # platformdirs: no HOME and no passwd entry
        return ""


def _decide(store: Store, event: HookEvent, cfg: config_mod.Config, now: float, *, dry_run: bool) -> HookResult:
    if event.event == "SessionEnd":
        return _session_end(store, event, cfg, now, dry_run=dry_run)
    warning = ""
    # Decide first on the ledger as read without the lock: all the parsing, hashing and first-use
    # costs (imports, compiling patterns) happen before the lock is taken. Under the lock the
    # prepared decision is kept if the ledger did not change meanwhile; otherwise the event is
    # decided again, now quickly. Under heavy CPU load this keeps the lock holder's share short.
    prepared = None if dry_run else _prepare(store, event, cfg, now)
    expect = prepared[0] if prepared is not None else None
    with store.session(event.session_id, write=not dry_run, expect=expect) as handle:
        warning = handle.warning or ""
        if handle.unchanged and prepared is not None:
            _, state, result = prepared
        else:
            state, result, warning = _apply(store, handle.state, event, cfg, now, warning)
        handle.state = state
        handle.dirty = True
    stderr = _line(warning)
    if result.responses and not dry_run:
        stderr = _join(stderr, _log_responses(store, event, cfg, result.responses))
    decision = result.decision
    stdout = render(decision, event.event, event.client)
    if result.record is not None and not dry_run:
        went = decision.action is not engine.Action.ALLOW and bool(stdout)
        record: dict[str, object] = {
            **result.record,
            "session": event.session_id,
            "client": event.client.value,
            "profile": cfg.profile,
            "mode": cfg.mode,
            # The text as the host was sent it ("" where nothing went: under observe, a reminder
            # held at a Stop, an answer the host takes nowhere), and where the session's
            # transcript is: `log` shows both, and the loop's tokens.
            "text": redact(fit(decision.message)) if went else "",
            **_would_text(decision, went=went),
            **_shown_to_user(stdout, hosts.capabilities(event.client), event.event),
            # A decision the host takes no answer for there went nowhere (a Stop's end of turn on
            # Qwen Code, Copilot CLI, Cursor, Droid, DSH): `log` and `stats` say so.
            **({} if went or decision.action is engine.Action.ALLOW else {"sent": False}),
            "transcript": (event.transcript_path or "")[:4096],
        }
        try:
            store.append_log(AUDIT_LOG, orjson.dumps(record))
        except StateError as exc:
            stderr = _join(stderr, f"loopguard-hook: audit log: {exc}")
    return HookResult(stdout=stdout, stderr=stderr, decision=decision, event=event)


def _shown_to_user(stdout: bytes, caps: hosts.Capabilities, event: str) -> dict[str, str]:
    """What the answer sent to the host puts in front of the user, redacted, for `log` to show
    beside what the model was told: `{"stop_reason": …}`, an end of turn's top-level
    `stopReason` on a host that shows it (`Capabilities.shows_stop_reason`), and
    `{"system_message": …}`, a `systemMessage` on an event where the host shows it
    (`Capabilities.system_message`)."""
    keep = {"stopReason": "stop_reason"} if caps.shows_stop_reason else {}
    if event in caps.system_message:
        keep["systemMessage"] = "system_message"
    if not any(f'"{key}"'.encode() in stdout for key in keep):
        return {}
    try:
        answer = orjson.loads(stdout)
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(answer, dict):
        return {}
    return {name: redact(value) for key, name in keep.items() if isinstance(value := answer.get(key), str) and value}


def _would_text(decision: engine.Decision, *, went: bool) -> dict[str, str]:
    """`{"would_text": …}`, the text the rules wrote, redacted, when it did not go out (`went`):
    the mode kept it from the model (`observe`; `advise` at a Stop), or the host takes no such
    answer there (`sent: false`): `log` shows it as what the guard would have said."""
    if went or not decision.message:
        return {}
    return {"would_text": redact(fit(decision.message))}


def _session_end(store: Store, event: HookEvent, cfg: config_mod.Config, now: float, *, dry_run: bool) -> HookResult:
    """Forget the session (unless kept); a pending intervention was answered by the end."""
    with store.session(event.session_id, write=not dry_run) as handle:
        # Observe mode exists to be looked at afterwards (`status`); gc removes it later.
        handle.delete = not (cfg.keep_state or cfg.mode == "observe")
        ended: list[ResponseRecord] = []
        if handle.state is not None and isinstance(handle.state.get("agents"), dict):
            _, result = engine.step(handle.state, event, cfg, hosts.dialect(event.client), now)
            ended = result.responses
        handle.dirty = bool(ended) and not handle.delete
    stderr = _line(handle.warning or "")
    if ended and not dry_run:
        stderr = _join(stderr, _log_responses(store, event, cfg, ended))
    return HookResult(stderr=stderr)


def _log_responses(store: Store, event: HookEvent, cfg: config_mod.Config, responses: list[ResponseRecord]) -> str:
    """Append what the model did after each intervention to `responses.jsonl`; "" or one line."""
    extra = {"session": event.session_id, "client": event.client.value, "profile": cfg.profile, "mode": cfg.mode}
    try:
        store.append_log(RESPONSES_LOG, b"".join(orjson.dumps({**r, **extra}) + b"\n" for r in responses))
    except StateError as exc:
        return f"loopguard-hook: responses log: {exc}"
    return ""


def _prepare(
    store: Store, event: HookEvent, cfg: config_mod.Config, now: float
) -> tuple[bytes, Session, engine.Step] | None:
    """The ledger's bytes, and the state and step after this event, from an unlocked read;
    None when the ledger is odd in any way (the locked path deals with it)."""
    peeked = store.peek(event.session_id)
    if peeked is None:
        return None
    raw, found = peeked
    try:
        state, result = _step(found, event, cfg, now)
    except (TypeError, KeyError, AttributeError, ValueError, IndexError, ReaderBug):
        return None  # a ledger of the wrong shape, or a reader's bug: logged under the lock
    return raw, state, result


def _apply(
    store: Store, state: Session | None, event: HookEvent, cfg: config_mod.Config, now: float, warning: str
) -> tuple[Session, engine.Step, str]:
    """The state and step after this event, and the warning to show."""
    try:
        try:
            return (*_step(state, event, cfg, now), warning)
        except ReaderBug as bug:
            # A transcript or log the reader could not take (a bug of ours on a record of an odd
            # shape): logged, and the event decided without its text, the ledger kept.
            log_bug(store, {}, HookOptions(state_dir=store.root), bug.__cause__ or bug)
            return (*_step(state, event, cfg, now, read=False), warning)
    except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:
        if state is None:
            raise
        # A ledger that parses but holds values of the wrong shape (edited by hand, or written
        # by another version): log it, and start the session afresh rather than fail on every
        # event until it ends.
        log_bug(store, {}, HookOptions(state_dir=store.root), exc)
        warning = "state file had values of the wrong shape; started the session afresh (see errors.log)"
        state, result = _step(None, event, cfg, now)
    return state, result, warning


class ReaderBug(Exception):
    """A host's transcript, rollout or session log raised in our reader (its `__cause__`): a bug
    to log, never a reason to start the session afresh."""


def _step(
    state: Session | None, event: HookEvent, cfg: config_mod.Config, now: float, *, read: bool = True
) -> tuple[Session, engine.Step]:
    """`engine.step` with the assistant text written since the last event, read from the host's
    transcript (a JSONL file) or session log (DSH's zstd log, on Stop, with the turn's final
    message, which a DSH Stop does not carry); `read=False` reads none.

    Raises:
        ReaderBug: a reader failed on what it read (the ledger is not at fault).
    """
    host = hosts.dialect(event.client)
    caps = host.CAPABILITIES
    if state is None:
        state = engine.new_session(event.session_id, event.client, now)
    if not read:
        return engine.step(state, event, cfg, host, now)
    try:
        polls = _unhooked(state, event, cfg, caps)
        reading = reads(event, cfg, caps)
    except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:
        raise ReaderBug(f"{type(exc).__name__} reading the host's rollout") from exc  # or a ledger: see _apply
    if not reading:
        return engine.step(state, event, cfg, host, now, unhooked=polls)
    try:
        path = event.agent_transcript_path if event.event == "SubagentStop" else event.transcript_path
        tail = cursor(state, event.agent_id)
        if caps.session_log:
            from .hosts import dshlog

            wait = dshlog.STOP_WAIT_SECONDS if event.event == "Stop" else 0.0
            found = dshlog.read_new_texts(tail, path, cfg.transcript_read_bytes, wait=wait)
            texts, final = found.texts, found.final
        else:
            from .hosts.transcript import read_new_texts

            texts, final = read_new_texts(tail, path, cfg.transcript_read_bytes), None
    except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:
        raise ReaderBug(f"{type(exc).__name__} reading the host's transcript") from exc
    return engine.step(state, event, cfg, host, now, texts, final, tail, polls)


def _unhooked(
    state: Session, event: HookEvent, cfg: config_mod.Config, caps: hosts.Capabilities
) -> tuple[list[Unhooked], Tail] | None:
    """The calls the host ran without a hook since the agent's last event (Codex `write_stdin`
    polls) and their outputs, read from its rollout from the cursor its ledger keeps, with the
    cursor after them; None where the host shows none or the rule is off."""
    if not (caps.unhooked_polls and cfg.hung_command_polls):
        return None
    from .hosts.rollout import read_unhooked

    tail = unhooked_cursor(state["agents"].get(event.agent_id))
    path = event.agent_transcript_path if event.event == "SubagentStop" else event.transcript_path
    return read_unhooked(tail, path, cfg.transcript_read_bytes), tail


def _line(text: str) -> str:
    return f"loopguard-hook: {text}" if text else ""


def _join(a: str, b: str) -> str:
    return f"{a}\n{b}" if a else b


#: How the stderr line of an unexpected error starts (`log_bug`).
_BUG = "loopguard-hook: internal error"


def log_problem(options: HookOptions, environ: Mapping[str, str], line: str, client: Client | None = None) -> None:
    """Append `line` (what would have gone to stderr) to `<state-dir>/errors.log`, for a host
    where it must not reach stderr; `doctor` shows each host's latest. The entry's heading is
    `--- <time> pid <pid>`, then ` host <client>` when the host is known. Never raises."""
    try:
        store = Store(options.state_dir or default_state_dir(environ))
        host = f" host {client.value}" if client is not None else ""
        text = f"--- {time.strftime('%Y-%m-%dT%H:%M:%S%z')} pid {os.getpid()}{host}\n{line.rstrip()}\n"
        store.append_log(ERROR_LOG, text.encode("utf-8", "replace"))
    except Exception:  # a log that cannot be written must not make the answer fail
        pass


def log_bug(store: Store | None, environ: Mapping[str, str], options: HookOptions, exc: BaseException) -> str:
    """Append the traceback to `<state-dir>/errors.log`; return the one line for stderr."""
    import traceback

    where = "errors.log"
    try:
        if store is None:
            store = Store(options.state_dir or default_state_dir(environ))
        text = f"--- {time.strftime('%Y-%m-%dT%H:%M:%S%z')} pid {os.getpid()}\n" + "".join(
            traceback.format_exception(type(exc), exc, exc.__traceback__)
        )
        store.append_log(ERROR_LOG, text.encode("utf-8", "replace"))
        where = os.path.join(store.root, ERROR_LOG)
    except Exception:  # logging must not turn a bug into a crash
        where = "errors.log (could not be written)"
    return f"{_BUG} ({type(exc).__name__}); the call was let through; details in {where}"
