"""Polls the hook never sees: a command left running that prints nothing, polled again and again
(`hung_command_polls`, `hung_command_seconds`).

Codex 0.171.0 fires no hook for `write_stdin`, the tool that polls a command `exec_command` left
running (research/codex-hooks.md §6), so a run of empty polls of a hung command costs minutes
and tokens the guard never sees; the model then often starts the same command again, which
hangs the same way. The host layer reads those polls from the rollout at the next hook event
(`hosts/rollout.py`) and the engine hands them over (`take`), with the cursor to keep.

A command session is hung once `hung_command_polls` bare polls in a row returned nothing and it
has printed nothing for `hung_command_seconds` (from the end of its last output, or its start).
The next hooked call that runs the same command again (`command_key`: the same program and
operands in the same `cd` folders, whatever its switches, in a folder it hung in: the payload's
`cwd`, which Codex 0.171.0 gives with the call's `workdir` applied) is judged by what happened
since the hung session started:
- nothing that may change what the command waits for (only reads: `shellwords.only_reads`, a
  read tool, failed calls, runs of the command itself): it would hang the same way, so it is
  denied at PreToolUse, saying what to do instead;
- a call of the agent's that may have (an edit or patch, a shell command other than a read, a
  permission request, a tool that spawns or waits for a subagent), or a line that adds what may
  answer the wait (`answers`: `CI=true`, `-y`, `</dev/null`, `&`): the model may have fixed the
  cause, as in an edit → test cycle, so it goes ahead, reminded once.
A command under a time limit (`timeout 300 …`) or a narrower target is another command: the
way out stays open. A session that prints again or ends by itself clears its command; one that
ends at a typed Ctrl-C or quit key does not (one that ends well at a line typed to its prompt
does). A user prompt or a compaction forgets what hung.

Its slot is `Agent.rules["unhooked"]` (`Table`): the reader's cursor (`tail`), `calls` waiting
for their output (at most `MAX_CALLS`), command `sessions` left running (at most
`MAX_SESSIONS`), the `hung` commands by the digest of their `command_key` (at most `MAX_HUNG`),
and the session's totals `polls` and `empty` (for `status`). A command line is kept redacted
for the texts, and as digests for the comparisons, never as written. `changed` is when the
latest call that may have changed what a hung command waits for succeeded (`on_result`).
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ..config.settings import Config
from ..core.event import HookEvent, Unhooked
from ..core.ledger import Agent, Limits, Tail, slot, slots, trim
from ..core.messages import PREFIX
from ..core.outcome import Failure
from ..core.redact import redact_prefix
from ..core.shellwords import (
    SHELL_KEYS,
    SHELL_TOOLS,
    assignment,
    command_parts,
    command_words,
    normal_folder,
    only_reads,
    past_assignments,
    shell_command,
)
from ..core.signature import digest
from ..core.tools import is_read_tool
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "unhooked"
MAX_CALLS = 16
#: The tools whose refusals Codex 0.171.0 sends no post event for, as its hooks name them: the
#: shell's `exec_command` (its execution policy) and apply_patch (its sandbox, read-only).
REFUSED_SHELL, PATCH_TOOL = "Bash", "apply_patch"
#: How much of a patch is kept until its answer is read: its file's header (`*** Update File:`).
PATCH_KEPT = 256
MAX_SESSIONS = 8
MAX_HUNG = 8
#: Folders kept per hung command: the latest ones it hung in.
MAX_FOLDERS = 4
#: Operands of a command kept in its key: enough to tell `dotnet build A.sln` from `dotnet build B.csproj`.
KEY_WORDS = 6
#: Options that answer a wait: a prompt (`-y`, `--yes`, `--non-interactive`), a watch mode, a
#: build server or daemon, a time limit, a pager (`answers`). Plain sets, not a regular
#: expression: nothing is compiled at import on the hook path.
_ANSWER_NAMES = frozenset(
    {"yes", "assume-yes", "non-interactive", "noninteractive", "no-input", "noinput", "no-interaction"}
    | {"nointeraction", "batch", "ci", "run", "force-exit", "forceexit", "no-daemon", "nodaemon"}
    | {"no-pager", "nopager", "unbuffered"}
)
_ANSWER_PARTS = ("watch", "timeout", "nodereuse")
#: Programs a command piped into answers a wait through: a pager's stand-ins (the command no
#: longer holds the terminal) and a log (`| tee t.log`, the denial's advice).
_PAGER_STAND_INS = frozenset({"cat", "head", "less", "more", "tee"})
#: Typed characters that stop a command rather than answer it: Ctrl-C, Ctrl-\, Ctrl-Z, Ctrl-D.
_INTERRUPTS = "\x03\x1c\x1a\x04"

if TYPE_CHECKING:  # the slot's shape, for the type checker (plain dicts at run time)
    from typing import NotRequired, TypedDict

    class Command(TypedDict):
        """A command line as the ledger keeps it: redacted and cut for the texts (`command`), the
        digest of its `command_key` (`key`, "" for none), the digests of its `answers`, and the
        digest of the folder its PreToolUse payload named (`folder`, "" when unknown)."""

        command: str
        key: str
        answers: NotRequired[list[str]]
        folder: NotRequired[str]

    class Waiting(TypedDict):
        """A call waiting for its output: a command (`run`), a patch its sandbox may refuse
        (`patch`, its start) or a poll (`session`; `typed` when it typed something, `answer`
        when that was a line with no control character: a reply to a prompt, not a quit key or
        a Ctrl-C)."""

        run: NotRequired[Command]
        patch: NotRequired[str]
        session: NotRequired[int]
        t: float
        typed: NotRequired[bool]
        answer: NotRequired[bool]

    class Running(TypedDict):
        """A command session left running since `start`: printed nothing since `quiet`, `empty`
        bare polls in a row answered nothing, `hung` once counted as a hang."""

        run: Command
        quiet: float
        empty: int
        hung: bool
        start: NotRequired[float]

    class Hung(TypedDict):
        """A command found hung (under its key's digest): the last hung command line (redacted),
        its session's `polls` and `seconds` of silence, how many sessions of it hung, whether the
        model was reminded, when the latest hung session started (`start`), the digests of what
        its line answered (`answers`), the digests of the folders it hung in (`folders`, ""
        for one not known; at most `MAX_FOLDERS`)."""

        command: str
        polls: int
        seconds: float
        hangs: int
        reminded: bool
        start: NotRequired[float]
        answers: NotRequired[list[str]]
        folders: NotRequired[list[str]]

    class Table(TypedDict, total=False):
        """`Agent.rules["unhooked"]`."""

        tail: Tail
        calls: dict[str, Waiting]
        sessions: dict[str, Running]
        hung: dict[str, Hung]
        polls: int
        empty: int
        changed: float

    class Shown(TypedDict):
        """What `status` shows of an agent's unhooked polls (`summary`)."""

        polls: int
        empty: int
        running: int
        hung: list[dict[str, str | int | float]]
else:
    Command = Waiting = Running = Hung = Table = Shown = dict


def _table(agent: Agent) -> "Table | None":
    return cast("Table | None", slot(agent, NAME))


def cursor(agent: Agent | None) -> Tail:
    """A copy of where the host layer stopped reading this agent's rollout (empty at first)."""
    table = _table(agent) if agent is not None else None
    tail = table.get("tail") if table is not None else None
    return cast("Tail", dict(tail)) if isinstance(tail, dict) else {}


def command_of(tool: str, tool_input: Any) -> str | None:
    """The command line of a shell call, or None for any other call."""
    if tool not in SHELL_TOOLS or not isinstance(tool_input, dict):
        return None
    return next((v for k in SHELL_KEYS if isinstance(v := tool_input.get(k), str)), None)


def command_key(command: str) -> str:
    """What makes two command lines the same command: the folders it runs in (`cd DIR &&`,
    `pushd DIR;`), the program and its first operands, `--name=value` options (a filter or a
    target, as `--name value` is by its operand), other options (`-x`, `--flag`, `-x:y`),
    redirections, other scene-setting commands (`export X=1;`) and assignments (`CI=1 make`) left
    out, up to the first operator. `dotnet build A.sln --no-restore` and `dotnet build A.sln
    -clp:ErrorsOnly` share a key; `dotnet build B.csproj`, `timeout 300 dotnet build A.sln`,
    `cd b && dotnet build A.sln` and `dotnet test --filter=Fast` (of `--filter=Slow`) do not. ""
    for none. A folder that Codex's `workdir` gives is not in the line (the hook payload drops it):
    two such runs share a key, and the rule tells them apart by the payload's `cwd` (`_elsewhere`)."""
    scene, segment, _, _ = command_parts(command)
    words = [w for i, w in enumerate(segment) if not assignment(w) and not (i and _operator_only(segment[i - 1]))]
    kept = [w for w in words if (not w.startswith("-") or (w.startswith("--") and "=" in w)) and "<" not in w and ">" not in w]
    key = " ".join(kept[:KEY_WORDS])
    folders = [program[1] for program in map(past_assignments, scene) if len(program) > 1 and program[0] in ("cd", "pushd")]
    return " ".join([*(f"cd {d}" for d in folders), key]) if key else ""


def _operator_only(word: str) -> bool:
    """An output redirection with its target in the next word (`>`, `2>>`, `&>`): that word is
    the redirection's, not an operand (`npm test > t.log` is `npm test`, as `npm test >t.log`
    is). An input's target stays an operand: `./sol < tests/2.in` is another run than
    `./sol < tests/1.in`, and `./setup.sh <<< y` than `<<< n`."""
    return word.lstrip("0123456789&") in (">", ">>", ">|")


def answers(command: str) -> list[str]:
    """What in a command line answers what a hung run of it may wait for, whatever its key: an
    assignment (`CI=true npm test`), a scene-setting command before it other than a `cd`
    (`export CI=true &&`, `ulimit -t 300;`, `source .venv/bin/activate &&`), an option that turns
    off a prompt, a watch mode, a daemon or buffering, or sets a time limit (`-y`,
    `--non-interactive`, `--watchAll=false`, `--no-daemon`, Python's `-u`, `--timeout=60`,
    `sudo -n`), its input from somewhere (`</dev/null`, `0<tests/2.in`, as written), its output
    to a file (`>/tmp/t.log`, whatever the file) or through a pipe into a pager's stand-in or a
    log (`| cat`, `| head`, `| tee t.log`: no terminal, no pager), or running it in the
    background (`npm run dev &`). `dotnet build A.sln -clp:ErrorsOnly`, `2>&1` and `| tail`
    answer nothing new. The words lower-cased (the ledger keeps only their digests)."""
    scene, segment, end, after = command_parts(command)
    program = next(iter(past_assignments(segment)), "").rsplit("/", 1)[-1]
    out = [w.lower() for w in segment if assignment(w) or _answers_a_wait(w, program)]
    # input as written (`<tests/2.in` is other input than `<tests/1.in`); output by its operator
    out += [w.lower() for w in segment if _redirects(w) and w.lstrip("0").startswith("<")]
    out += [">"] if any(_redirects(w) and not w.lstrip("0").startswith("<") for w in segment) else []
    # a scene set before it (not a `cd`: its folder is in the key)
    out += [w.lower() for words in scene if (p := past_assignments(words)) and p[0] not in ("cd", "pushd") for w in words]
    if end == "&":
        out.append("&")
    elif end in ("|", "|&") and next(iter(past_assignments(after)), "").rsplit("/", 1)[-1] in _PAGER_STAND_INS:
        out.append("|")  # a pager no longer holds the terminal, or the output goes to a log
    return out


def _redirects(word: str) -> bool:
    """Whether a word redirects the command's input (`<`, `0<f`, `<<<`) or its output to a file
    (`>`, `>f`, `>>f`, `1>f`, `&>f`); not a descriptor copy (`2>&1`, `>&2`) or stderr alone."""
    bare = word.lstrip("01&")
    if bare.startswith("<"):
        return word[:1] in "<0&" and not word.startswith("&")
    return bare.startswith(">") and word[:1] in ">1&" and not bare.startswith(">&") and not bare.startswith(">>&")


def _answers_a_wait(word: str, program: str = "") -> bool:
    """Whether a word is an option that answers a wait: `-y`, `-yes`, `--yes`, `--ci=true`,
    `-p:nodeReuse=false`, `--watchAll=false`, `--timeout 60`; `-u` of Python (unbuffered
    output: a run that printed nothing may have printed all along; `git push -u` answers
    nothing), `-n` of `sudo`. Names are compared lower-cased, single letters as written."""
    if not word.startswith("-"):
        return False
    rest = word[1:].lower()
    if any(part in rest for part in _ANSWER_PARTS):
        return True
    name = rest.split("=", 1)[0].split(":", 1)[0]
    if word[1:2] == "y" and name == "y":
        return True
    if word == "-u" and program.startswith("python"):
        return True
    if word == "-n" and program == "sudo":
        return True
    return len(name) > 1 and (name in _ANSWER_NAMES or (name[:1] == "-" and name[1:] in _ANSWER_NAMES))


def _digest(text: str) -> str:
    return digest(text.encode("utf-8", "surrogatepass")) if text else ""


def _command(command: str, folder: str | None = None) -> "Command":
    """What the ledger keeps of a command line: never the line itself (it may hold a secret).
    `folder` is its PreToolUse payload's `cwd` (None: a call the hook read only in the rollout)."""
    run: Command = {"command": redact_prefix(command, 160), "key": _digest(command_key(command)), "answers": _answered(command)}
    if folder:
        run["folder"] = _digest(normal_folder(folder))
    return run


def _answered(command: str) -> list[str]:
    return sorted({_digest(w) for w in answers(command)})


# -- what the host layer read: folded into the slot at each event ----------------------------


def take(
    agent: Agent, event: HookEvent, items: Sequence[Unhooked], tail: Tail, config: Config, now: float
) -> list[tuple[Unhooked, str, str]]:
    """Fold the unhooked calls and outputs read since the last event into the agent's table, and
    keep the reader's cursor. A shell call's PreToolUse is noted too (its output names the
    session it leaves running; the rollout may show the call before the hook's cursor starts).
    The calls among them that the host refused to run (`Unhooked` `refused`), each with the tool
    its hooks name (`REFUSED_SHELL`, `PATCH_TOOL`) and its command line or patch as kept
    (redacted; a patch's first `PATCH_KEPT` characters, kept until its answer or the turn's end),
    for the engine to judge as their post events."""
    table = cast("Table", slots(agent).setdefault(NAME, {}))
    table["tail"] = tail
    calls = table.setdefault("calls", {})
    if event.event == "PreToolUse" and event.tool_use_id and event.tool_name is not None:
        command = command_of(event.tool_name, event.tool_input)
        if command is not None and event.tool_use_id not in calls:
            calls[event.tool_use_id] = {"run": _command(command, event.cwd), "t": now}
        patch = event.tool_input.get("command") if event.tool_name == PATCH_TOOL and isinstance(event.tool_input, dict) else None
        if isinstance(patch, str) and event.tool_use_id not in calls:
            calls[event.tool_use_id] = {"patch": redact_prefix(patch, PATCH_KEPT, complete=len(patch) <= PATCH_KEPT), "t": now}
    elif event.tool_name == PATCH_TOOL and event.tool_use_id and "patch" in calls.get(event.tool_use_id, {}):
        del calls[event.tool_use_id]  # its post event came: it was judged there
    refused: list[tuple[Unhooked, str, str]] = []
    for item in items:
        waiting = calls.pop(item.call_id, None) if item.kind == "refused" else None
        if waiting is not None and "run" in waiting:
            refused.append((item, REFUSED_SHELL, waiting["run"]["command"]))
        elif waiting is not None and "patch" in waiting:
            refused.append((item, PATCH_TOOL, waiting["patch"]))
        _absorb(table, item, item.time if item.time is not None else now, config)
    if event.event not in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        for key in [k for k, waiting in calls.items() if "patch" in waiting]:
            del calls[key]  # a prompt or a Stop: the turn is over, its refusals are no longer judged
    trim(calls, MAX_CALLS, lambda k: calls[k]["t"])
    sessions = table.setdefault("sessions", {})
    trim(sessions, MAX_SESSIONS, lambda k: sessions[k]["quiet"])
    hung = table.setdefault("hung", {})
    trim(hung, MAX_HUNG, lambda k: hung[k]["seconds"])
    return refused


def _absorb(table: "Table", item: Unhooked, t: float, config: Config) -> None:
    calls = table.setdefault("calls", {})
    sessions = table.setdefault("sessions", {})
    if item.kind == "gap":  # what was skipped may have cleared a hang: forget it, as a prompt does
        _forget(table)
    elif item.kind == "command":
        if item.call_id not in calls:
            calls[item.call_id] = {"run": _command(item.text), "t": t}
    elif item.kind == "poll" and item.session is not None:
        # Only a line typed to a prompt (`y\n`, `init\n`) answers it; a quit key (`q` to a
        # pager or a watch mode) or a control character stops what would wait the same way again.
        answer = item.text.endswith(("\n", "\r")) and not any(c in item.text for c in _INTERRUPTS)
        calls[item.call_id] = {"session": item.session, "t": t, "typed": bool(item.text), "answer": answer}
        table["polls"] = table.get("polls", 0) + 1
    elif item.kind == "output" and (waiting := calls.pop(item.call_id, None)) is not None:
        if "run" in waiting:
            if item.session is not None:  # left running: its polls will follow
                quiet = waiting["t"] if item.empty else t
                run, start = waiting["run"], waiting["t"]
                sessions[str(item.session)] = {"run": run, "quiet": quiet, "empty": 0, "hung": False, "start": start}
            return
        typed = waiting.get("typed", False)
        if not typed and item.empty and item.session is not None:
            table["empty"] = table.get("empty", 0) + 1
        session = str(waiting.get("session"))
        entry = sessions.get(session)
        if entry is None:
            return
        if item.session is None:  # the command ended
            del sessions[session]
            if not typed or (waiting.get("answer", False) and item.code == 0):  # by itself, or answered: no hang
                _clear(table, entry)
        elif not item.empty:
            entry["quiet"], entry["empty"] = t, 0
            _clear(table, entry)
        elif not typed:
            entry["empty"] += 1
            polls = config.hung_command_polls
            if polls and entry["empty"] >= polls and t - entry["quiet"] >= config.hung_command_seconds:
                _hung(table, entry, t)


def _hung(table: "Table", entry: "Running", t: float) -> None:
    run = entry["run"]
    if not run["key"]:
        return
    hung = table.setdefault("hung", {})
    found = hung.setdefault(run["key"], {"command": "", "polls": 0, "seconds": 0.0, "hangs": 0, "reminded": False})
    if not entry["hung"]:  # a session counts once, however long it stays hung
        entry["hung"] = True
        found["hangs"] += 1
        found["start"] = entry.get("start", entry["quiet"])
    found["command"], found["polls"], found["seconds"] = run["command"], entry["empty"], round(t - entry["quiet"], 3)
    found["answers"] = list(run.get("answers", []))
    folders = found.setdefault("folders", [])
    if (folder := run.get("folder", "")) not in folders:
        folders.append(folder)
        del folders[:-MAX_FOLDERS]


def _elsewhere(found: "Hung", folder: str | None) -> bool:
    """Whether a call in `folder` (its payload's `cwd`) runs the command in a folder it did not
    hang in. Codex 0.171.0 drops `exec_command`'s `workdir` from `tool_input` but applies it to
    the payload's `cwd` (seen with the real client: tests/e2e/test_codex.py); a host or a
    release whose `cwd` is the turn's gives one folder for every call, and nothing changes."""
    folders = found.get("folders", [])
    return bool(folder) and bool(folders) and "" not in folders and _digest(normal_folder(folder or "")) not in folders


def _clear(table: "Table", entry: "Running") -> None:
    """A session that printed again or ended by itself clears its command's hang in its folder
    (in every folder when its folder is not known, or no other is left)."""
    if not entry["hung"]:
        return
    entry["hung"] = False
    hung = table.get("hung", {})
    found = hung.get(entry["run"]["key"])
    folders = found.get("folders", []) if found is not None else []
    folder = entry["run"].get("folder", "")
    if found is not None and folder and folder in folders and len(folders) > 1:
        folders.remove(folder)
        return
    hung.pop(entry["run"]["key"], None)


# -- the judge --------------------------------------------------------------------------------


def on_call(ctx: CallContext) -> Decision | None:
    """A call that runs a hung command again: denied at PreToolUse when nothing that may change
    what it waits for succeeded since its hung session started; else reminded once."""
    table = _table(ctx.agent) if ctx.config.hung_command_polls and ctx.tracked else None
    hung = table.get("hung") if table is not None else None
    command = command_of(ctx.tool, ctx.tool_input) if hung else None
    found = hung.get(_digest(command_key(command))) if hung and command is not None else None
    if found is None or table is None or _elsewhere(found, ctx.event.cwd):
        return None
    what = found["command"]
    polls, minutes = found["polls"], found["seconds"] / 60
    # A ledger of before `start` was kept: any change counts, so the rule only reminds.
    changed = table.get("changed", 0.0) > found.get("start", 0.0)
    # A line that answers what it may wait for in a way the hung one did not (`CI=true`, `-y`,
    # `--watchAll=false`, `</dev/null`, `&`) is a change in itself, whatever its key.
    changed = changed or not set(_answered(command or "")) <= set(found.get("answers", []))
    if ctx.event.event == "PreToolUse" and not changed:
        found["reminded"] = True
        return Decision(
            Action.DENY, Rule.HUNG, hung_denial(what, polls, minutes), advice=hung_reminder(what, polls, minutes), tool=ctx.tool
        )
    if not found["reminded"]:
        found["reminded"] = True
        return Decision(Action.REMIND, Rule.HUNG, hung_reminder(what, polls, minutes), tool=ctx.tool)
    return None


def on_result(ctx: ResultContext) -> Decision | None:
    """Note when a call that may change what a hung command waits for succeeded (`changed`);
    never a verdict. Noted whenever the agent has a table, not only while a command is hung: a
    session is found hung at the event after its polls, and a fix made while it ran (after its
    start, before its polls) counts as one made since it started."""
    table = _table(ctx.agent) if ctx.config.hung_command_polls else None
    if table is None or ctx.outcome.failure == Failure.HARD:
        return None
    if ctx.tool in SHELL_TOOLS:
        command = shell_command(ctx.tool, ctx.tool_input)
        # A failure only the output's text suggests (Codex sends no exit code) is a failure of a
        # single command (`pkill -f jest`: "Operation not permitted"), but of a list it may be
        # the check after a fix that worked (`rm -f x.lock; ls x.lock`: "No such file").
        if ctx.outcome.failure != Failure.NONE and not (command and _several(command)):
            return None
        if command is not None and only_reads(command):
            return None  # a read changes nothing the command waits for
        if command is not None and _digest(command_key(command)) in _watched(table):
            return None  # the command itself (a result at its early return, or at its end) or a run of it again
    elif is_read_tool(ctx.tool, ctx.config):
        return None
    table["changed"] = ctx.agent["updated"]
    return None


def _several(command: str) -> bool:
    """Whether a command line runs more than one command in a row (`a; b`, `a && b`)."""
    return any(w in (";", "&&", "||", "\n") for w in command_words(command))


def _watched(table: "Table") -> set[str]:
    """The keys of the commands left running or found hung: their own results change nothing."""
    keys = set(table.get("hung", {}))
    keys.update(entry["run"]["key"] for entry in table.get("sessions", {}).values())
    keys.discard("")
    return keys


def fit(agent: Agent, share: Limits) -> None:
    """At most `MAX_CALLS`, `MAX_SESSIONS` and `MAX_HUNG` entries, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction forgets what hung, and the empty polls counted toward it; the
    cursor, the sessions still running and the totals stay (they are facts of the session)."""
    table = _table(agent)
    if table is not None:
        _forget(table)


def _forget(table: "Table") -> None:
    """Forget what hung and the empty polls counted toward it (`reset`, and a `gap` in what the
    host layer read)."""
    table.pop("hung", None)
    for entry in table.get("sessions", {}).values():
        entry["empty"], entry["hung"] = 0, False


def summary(agent: Agent) -> "Shown | None":
    """What `status` shows of the agent's unhooked polls: `{"polls", "empty", "running",
    "hung": [{"command", "polls", "seconds"}]}`, or None when none was seen."""
    table = _table(agent)
    if not table or not (table.get("polls") or table.get("hung")):
        return None
    return {
        "polls": table.get("polls", 0),
        "empty": table.get("empty", 0),
        "running": len(table.get("sessions", {})),
        "hung": [
            {"command": h["command"], "polls": h["polls"], "seconds": h["seconds"]}
            for h in table.get("hung", {}).values()
        ],
    }


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def hung_reminder(what: str, polls: int, minutes: float) -> str:
    """A hung command run again: what happened, and what to do instead."""
    return (
        f"[{PREFIX}] `{what}` hung earlier in this session: {polls} polls of it over {minutes:.0f} minutes "
        "returned nothing. Running it again will most likely hang the same way. First find what it waits "
        "for (a prompt for input, a lock, a build server or daemon, a watch mode), then run it under a time "
        "limit (`timeout 300 …`) or with its output going to a log file you read, or try a narrower target."
    )


def hung_denial(what: str, polls: int, minutes: float) -> str:
    """A hung command run again with nothing changed since it hung: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this command was not run: `{what}` hung before ({polls} polls over "
        f"{minutes:.0f} minutes returned nothing), and nothing that could change what it waits for has been "
        "done since (loop guard policy, not a tool failure). Find what it waits for (input, a lock, a build "
        "server, a watch mode) and change that, run it under a time limit (`timeout 300 …`), or try a "
        "narrower target"
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("hung_denial", "REPEAT_TOOL_BLOCKED: this command was not run: ", " hung before ("),
    ("hung_reminder", f"[{PREFIX}] ", " returned nothing. Running it again will most likely hang"),
)
