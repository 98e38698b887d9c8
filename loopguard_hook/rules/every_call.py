"""One wall for every call: every call refused the same way, whatever it is (`refused_remind_at`).

A sandbox that refuses every command, a permission rule that refuses a tool, a broken hook that
fails every call, a network that is not there: the agent tries one thing after another and each
fails with the same refusal. The calls differ, so the repeat rule does not count them, and the
same-error wall denies only a retry identical to a failed call. Nothing the agent tries this
way can succeed, so after the reminder this rule denies the next call of the refused tools, and
a further round ends the turn (Claude Code `continue: false`; Codex a final denial; DSH answer-only
for the rest of the turn).

A refusal is a failure whose text says the environment refused the call (`REFUSALS`: a sandbox,
`Operation not permitted`, `Permission denied`, `Read-only file system`, a permission rule, a hook error, `command not
found`, a name that does not resolve, a network that is unreachable), not what the call asked
(a syntax error is no refusal); under Codex's sandbox wrapper, only what the command printed
says so (older Codex wrapped any non-zero exit). Refusals are compared as `outcome.error_signature` compares
errors, with the tool's name masked. The wall stands once `refused_remind_at` rounds of calls of
at least `MIN_KINDS` kinds (tools, or programs run through the shell) were refused the same way
with no success of any call between; calls issued together are one round. After the reminder,
a call of the refused tools is denied (when one tool ran them all, only of the programs refused,
until more than `MIN_KINDS` were: a program not tried yet may work), and the round after the
denial ends the turn. Any success
ends the wall, as does a user prompt or a compaction. A refused call run again identically is let
through once (Codex's retry with escalated permissions, which its hooks see as the same call).

A shell tool that cannot start (`SHELL_UNAVAILABLE`: Claude Code unable to make its own folder
in /tmp, so every Bash call fails before its command runs) is a wall of the tool: it needs no
`MIN_KINDS` programs, and after its reminder any call of that tool is denied, whatever it runs.
Only a shell tool's failure whose whole text is that line, for a folder `claude` or
`claude-<uid>`, is one: not Write or an MCP tool refused a mkdir, not a program's own output.
A look (`_LOOKS`: Read, LS, Glob, Grep, a web search or fetch) between its failures leaves it standing,
though after one a reminded wall lets a shell call through, once (the user may have mended the
folder mid-turn, which fires no prompt event); any other success, which may have repaired it,
ends it.

Another hook that cannot start (`HOOK_BROKEN`: its script is not there, and its launcher exits 2,
which is how Claude Code blocks a call: `uv run`'s "error: Failed to spawn", Python's "can't open
file", dash's "cannot open", first in the hook's output) refuses every call its matcher covers: a
wall of its own kind (`HOOK_KEY`), which stands once refusals of `MIN_KINDS` kinds came, from their
first round: one reply of three kinds of calls all refused so shows that nothing the agent tries
with those tools will run, not even a new hook written with them (issue 22 class 4; held-out corpus
transcript 5aab28de: twelve calls in two replies refused so). It then goes as any wall: after the
reminder a call of a refused kind is denied (through one tool, a program it has not refused goes
ahead while it refused `MIN_KINDS` or fewer: a hook run only for some commands, Claude Code's `if:
"Bash(git *)"`, may be all that is broken), and the round after ends the turn; its texts say to
mend the hook with a tool it does not cover, or to tell the user, and the user's notice names the
hook's command. Where it first stands in a later round, with `HOOK_STOP_KINDS` kinds refused and
every call the agent made since the batch before its first refusal refused (`_refused_whole`: a
success of a tool it never refused means the hook covers other tools only; an untracked tool's
refusal, a TodoWrite's, is not seen, so its kinds come slower), the turn ends there instead, since
a reminder would come after the loop (Claude Code ends it at PostToolBatch; elsewhere the reminder
goes out), and the wall stays for a call sent with no prompt first; with fewer kinds it waits for
`refused_remind_at` rounds, as any wall. A policy hook's block (`BLOCKED: …`, whatever words its
reason uses) is no such refusal: it refuses what it was written to refuse, and is compared as any
other.

Claude Code's permission refusal (`Permission to use Bash has been denied. IMPORTANT: …`, or a
deny rule's `Permission to use Bash with command <command> has been denied.`,
`outcome.PERMISSION_REFUSAL`) is a wall of its own kind. Claude Code writes it when a call needs
an approval nobody can give (a background subagent, `dontAsk`; anthropics/claude-code#30693,
#55825; corpus transcript 4530697c) or meets a deny rule, and writes it for every tool alike, so
the refusals of every tool compare alike (a deny rule's once counted as any other refusal, so
after refusals of `rm -rf`, `git push` and `curl -X POST` a `git status` was denied); a success
of a kind the wall never refused (a `grep` an allow rule covers, Read) leaves it standing, and a
success of a refused kind ends it. What it refused is known only as far as the approval rules
go, and those are per command prefix and per path (`Bash(git push:*)`, a file outside the
project or under `.claude/`), per web host, or per tool. So after the reminder only what would
meet the same rule is denied (`_target`): WebSearch, a fetch of a host (and port) that was
refused, and a shell `curl`, `wget`… of a host it was refused for (`curl … https://h/a` after
`curl … https://h/b`); never a tool given a path, an MCP tool, `Task` or `Skill` (refused,
maybe, for their input), nor any other shell command, nor a target that worked since the wall
began. The texts name the refused kinds. Refusals in two permission modes (the payload's
`permission_mode`) are two walls, and a call in another mode than the latest refusal's ends a
reminded wall before anything is denied (the user left `dontAsk` with Shift+Tab): the new mode
may approve what the old one refused. A deny rule's refusal of a shell command is no target:
such rules go by command prefix, so `curl -X POST …` refused says nothing of a GET of the host.
A write tool's call on a Claude Code settings file that went through (`tools.SETTINGS`: the
user approved a change of the permission settings) ends the wall.

Codex's read-only sandbox rejecting a patch (`READ_ONLY`, read from the rollout as the policy's
refusals are, below) is a wall of patches alone: three rounds of rejected patches are reminded,
with no other kinds needed; after the reminder a patch is denied and the next ends the turn,
every other call goes ahead and leaves the wall standing, and no other refusal replaces it.

Codex's execution policy refusing a command before it starts (`POLICY`: 0.171.0 sends no post
event for it; the host layer reads the refusal from the rollout at the agent's next tool event,
which judges it as the post event would have been, `core/engine.py`) is a wall of its own kind
too: its refusals compare alike whatever prefix rule each names, and its texts say what the
policy refused. The policy goes by command prefix, and Codex refuses a line when any of its
commands starts with a forbidden prefix (`git status && git push` for `git push`): so after
the reminder only a command of which some part starts with a prefix a refusal named (`policy
forbids commands starting with `git push``, `_prefixed`) is denied, every time (it would be
refused again; nothing else is, and the turn goes on). A command the policy allowed leaves the
wall standing; one with a refused prefix that ran ends it. A refusal that names no prefix
("blocked by policy") is reminded, never denied: what else it refuses is not known.

Its slot is `Agent.rules["every_call"]`: the wall being watched, `[error key, rounds, the
tools and programs refused, when the first result of the latest round came back, level,
denied at, and for a permission wall the targets that worked since it began, the targets
it refused (`_target`) and the permission mode of its latest refusal; for a policy wall the
prefixes its refusals named at `REFUSED` (`_prefixed`); for a shell wall, at `LOOK`, whether a
look came since its latest failure (`LOOKED`) or let a shell call through already (`TRIED`); for
a broken hook's wall, the `batch_seq` before it began at `SINCE` and the hook's command at
`HOOK_COMMAND`]`.
"""

import re
from typing import Any, cast

from ..core.ledger import MAX_ID_CHARS, Agent, Limits, drop_slot, issued, new_round, slot, slots
from ..core.messages import PREFIX, ended_turn, quote
from ..core.outcome import DENY_RULE_REFUSAL, PERMISSION_REFUSAL, SANDBOX_EXIT, Failure, error_signature
from ..core.redact import redact_prefix
from ..core.shellwords import (
    OPERATORS,
    SHELL_KEYS,
    SHELL_TOOLS,
    command_parts,
    command_words,
    program_words,
    shell_command,
)
from ..core.tools import writes_settings
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "every_call"
MAX_KINDS = 8
#: Kinds of call (tools, or programs run through the shell) a wall must have refused: with two,
#: the next program tried often worked (corpus rollout of 2025-10-27: a typecheck refused by the
#: sandbox two ways, then eslint ran).
MIN_KINDS = 3
QUOTE_CHARS = 240
#: What a refusal by the environment says (sandboxes, permission rules, hooks, missing
#: programs, the network): Claude Code 2.1.332 and Codex 0.171.0 texts, corpus rollouts.
REFUSALS = (
    r"sandbox|Operation not permitted|Permission denied|permission to use|has been denied|not allowed to"
    r"|blocked by|hook error|denied by|command not found|not recognized as|Could not resolve host"
    r"|Temporary failure in name resolution|Network is unreachable|Connection refused"
    r"|Read-only file system"
)
_SYNTAX_ERROR = r"syntax error|unexpected EOF|unexpected token|SyntaxError|invalid syntax"
#: Codex's sandbox wrapper (`outcome.SANDBOX_EXIT`) is no refusal by itself: what the command
#: printed is judged, or a kill by SIGSYS (exit code 159), which is seccomp's.
_SIGSYS_EXIT = 159
#: The key every permission refusal shares: the tool it names is the call's kind, not the error.
PERMISSION_KEY = "permission"
#: Codex's execution policy refusing a command before it starts, as the host layer words its
#: answer (`hosts/rollout.refusal`: 0.171.0 sends no post event, the rollout has it). One policy
#: refuses whatever it refuses, so its refusals compare alike (`POLICY_KEY`).
POLICY = "exec_command failed: rejected: "
POLICY_KEY = "policy"
#: The prefix a refusal by a `prefix_rule(…, decision = "forbidden")` names (Codex 0.171.0).
_FORBIDS = r"policy forbids commands starting with `([^`\n]{1,200})`"
#: The host's own shell tool failing before any command runs: Claude Code cannot make its
#: per-user folder (`EACCES: permission denied, mkdir '/tmp/claude-10603'`: Termux, a shared
#: /tmp, an HPC node; anthropics/claude-code#20139, #20567, #86222; held-out 2.1.49 sessions of
#: one Termux user, every Bash call of every session refused so). Whatever the command, it is
#: refused so: the wall is the tool's, not its programs', and needs no `MIN_KINDS` programs.
#: The whole text is the host's one line, the folder `claude` or `claude-<uid>` (a program's own
#: output, which Codex and Droid pass as the error, goes on; a project's `/tmp/claude-cache` is
#: its own), and only a shell tool's failure is one (`refusal_key`): Write refused a mkdir is not.
SHELL_UNAVAILABLE = r"\A(?:Error: )?E(?:ACCES|PERM|ROFS|NOENT): [^\n,]*, mkdir '[^'\n]*/claude(?:-\d+)?(?:/[^'\n]*)?'\s*\Z"
#: The key every such failure shares (the folder's name differs by user and session).
SHELL_KEY = "shell"
#: Another hook of the host that cannot start, as Claude Code words its block of the call (`Bash
#: operation blocked by hook:\n- ` in 1.0.x, `PreToolUse:Bash hook error: ` in 2.x, then the hook's
#: command in brackets and what it printed; corpus transcripts 5aab28de, 08e71d8b). Claude Code
#: blocks a call only on a hook's exit 2, and these are the launchers that exit 2 when the script is
#: not there: `uv run`'s `error: Failed to spawn:` and Python's `can't open file` (a shell's
#: `command not found` exits 127, which blocks nothing). The hook's output must start with it (past
#: uv's `Reading inline script metadata` line): a policy hook's reason that mentions such words, or
#: a shell profile's noise before its block, is no such refusal.
HOOK_BROKEN = (
    r"\A(?:\S+ operation blocked by hook:\s*- |PreToolUse:\S+ hook error: )\[[^\]\n]{1,1000}\]: "
    r"(?:Reading inline script metadata from [^\n]{1,1000}\n)?"
    r"(?:error: Failed to spawn: |[^\n]{0,300}?(?i:python)[\d.]*(?:\.exe)?: can't open file |[^\s:]{0,200}sh: \d+: cannot open )"
)
#: The key every such refusal shares, whatever tool it names.
HOOK_KEY = "hook"
#: Kinds of call a broken hook's wall must have refused, in replies refused whole, to end the turn
#: where it first stands in a later round: with fewer, a hook run only for some commands (Claude
#: Code's `if: "Bash(git *)"`) may be all that is broken, and it is left to the reminder.
HOOK_STOP_KINDS = 5
#: Where a broken hook's wall keeps the agent's `batch_seq` when it began: the calls after it
#: are those of its first reply on (`_refused_whole`).
SINCE = 6
#: Where it keeps the hook's command as the host names it (`[uv run .claude/hooks/x.py]`), redacted,
#: for the user's notice when the turn ends (`_hook_named`).
HOOK_COMMAND = 7
#: The command a host's block names first, in brackets.
_HOOK_COMMAND = r"\[([^\]\n]{1,1000})\]"
#: Rounds past which a wall read from the state is taken as damaged (`_wall`).
_MAX_ROUNDS = 1_000_000
#: Codex's sandbox refusing a patch because it cannot write at all (0.171.0 under `-s
#: read-only`: "patch rejected: writing is blocked by read-only sandbox; rejected by user approval
#: settings"; a new user's rollout). The host says every patch will be refused: a wall of patches
#: (`READ_ONLY_KEY`) that needs no `MIN_KINDS`, which another refusal does not replace (a read-only
#: profile often lacks `rg` too). Shell writes refused "Read-only file system" do not join it:
#: the wall knows a command by its program, and the same program reads (`sed -n` after `sed -i`,
#: `git log` after `git stash`, a test run whose cache warning says so), so only patches are denied.
READ_ONLY = "patch rejected: writing is blocked by read-only sandbox"
READ_ONLY_KEY = "read-only"
#: Where a shell wall keeps what came since its reminder: `LOOKED`, a look (`_LOOKS`) since its
#: latest failure; `TRIED`, the one shell call a look lets through, let through already.
LOOKED, TRIED = "looked", "tried"
LOOK = 6
#: Where a permission wall keeps the targets that worked since it began and those it refused
#: (`Wall`, `_target`), at most `MAX_KINDS` each.
WORKED, REFUSED, MODE = 6, 7, 8
#: A URL's host with its port (`localhost:3000` and `localhost:8080` are two; an IPv6 host whole;
#: `shellwords`' quote marks \x01-\x04 end it).
_URL_HOST = r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@\s'\"]*@)?(\[[^\]\s]*\](?::\d+)?|[^/?#\s'\"\x01-\x04]+)"
#: Options of a fetcher whose value is a URL other than the one fetched (a proxy, a referer).
_OTHER_URL = frozenset({"-x", "--proxy", "--preproxy", "-e", "--referer"})
#: Tools Claude Code approves as a whole, whatever their input: a refusal of one call is one of all.
_WHOLE_TOOLS = frozenset({"WebSearch"})
#: A host's prefix naming the tool (`PreToolUse:Bash hook error:`), masked so every tool's
#: refusal compares alike.
_TOOL_PREFIX = r"\A(?:PreToolUse|PostToolUse):\S+ "

#: `[error key, rounds, kinds, latest round answered at, level, denied at(, targets that worked,
#: targets refused, permission mode: a permission wall's)]`.
Wall = list[Any]


def _wall(agent: Agent) -> Wall | None:
    """The wall being watched, read leniently: a slot not of its shape (a state file edited by
    hand, an older release's) is dropped, as no wall."""
    wall = slot(agent, NAME)
    if wall is None:
        return None
    if (
        isinstance(wall, list) and len(wall) >= 6 and isinstance(wall[0], str) and type(wall[1]) is int
        and 0 <= wall[1] <= _MAX_ROUNDS and isinstance(wall[2], list) and all(isinstance(k, str) for k in wall[2])
        and all(type(v) in (int, float) and abs(v) < 1e12 for v in wall[3:6])
    ):
        return wall
    drop_slot(agent, NAME)
    return None


def refusal_key(text: str, tool_input: Any, tool: str | None = None) -> str | None:
    """The key a refusal is compared by, or None for a failure that is no refusal; `tool`: the
    tool refused (`SHELL_KEY` is a shell tool's only)."""
    head = text[:2000]
    if re.match(PERMISSION_REFUSAL, head.lstrip()):
        return PERMISSION_KEY
    if tool in SHELL_TOOLS and re.match(SHELL_UNAVAILABLE, head.lstrip()):
        return SHELL_KEY
    if re.match(HOOK_BROKEN, head.lstrip()):
        return HOOK_KEY
    if tool in SHELL_TOOLS and head.startswith(POLICY):
        return POLICY_KEY
    if tool == "apply_patch" and head.startswith(READ_ONLY):
        return READ_ONLY_KEY
    wrapped = re.match(SANDBOX_EXIT, head)
    said = head[wrapped.end() :] if wrapped and int(wrapped[1]) != _SIGSYS_EXIT else head
    if not re.search(REFUSALS, said, re.IGNORECASE) or re.search(_SYNTAX_ERROR, head):
        return None
    return error_signature(re.sub(_TOOL_PREFIX, "", head.strip()), tool_input)[:16]


def kind_of(tool: str, tool_input: Any) -> str:
    """The tool, and for a shell command the program it runs first, past scene-setting commands
    (`cd DIR &&`), assignments and wrappers (`_command`: `cd .claude/hooks && cat > x` runs `cat`,
    not `hooks`)."""
    if tool in SHELL_TOOLS and isinstance(tool_input, dict):
        words = _command(tool_input)
        return f"{tool[:MAX_ID_CHARS]}:{(words[0].rsplit('/', 1)[-1] if words else '')[:64]}"
    return tool[:MAX_ID_CHARS]


def on_result(ctx: ResultContext) -> Decision | None:
    """Follow the refusals; remind once the wall stands."""
    threshold = ctx.config.refused_remind_at
    if not threshold:
        return None
    wall = _wall(ctx.agent)
    if ctx.outcome.failure == Failure.NONE:
        if wall is not None and wall[0] == PERMISSION_KEY and writes_settings(ctx.tool, ctx.tool_input, ctx.config):
            drop_slot(ctx.agent, NAME)  # the user approved a change of the permission settings
            return None
        if wall is not None and wall[0] == PERMISSION_KEY and _kind(wall, ctx.tool, ctx.tool_input) not in wall[2]:
            # approved without asking: the refused kinds stay refused
            _targets(wall, WORKED, _target(ctx.tool, ctx.tool_input, ctx.config.path_keys))
            return None
        if wall is not None and wall[0] == POLICY_KEY and _prefixed(ctx.tool, ctx.tool_input, _targets(wall, REFUSED)) is None:
            return None  # allowed by the policy: what it refused stays refused
        if wall is not None and wall[0] == READ_ONLY_KEY and _kind(wall, ctx.tool, ctx.tool_input) not in wall[2]:
            return None  # any call but a patch: patches stay refused
        if wall is not None and wall[0] == SHELL_KEY and ctx.tool in _LOOKS:
            # a look says nothing of the shell: the wall stands, but the next shell
            # call is let through once (the user may have mended it meanwhile, mid-turn)
            if _look(wall) != TRIED:
                wall[LOOK:] = [LOOKED]
            return None
        drop_slot(ctx.agent, NAME)  # something works: not every call is refused
        return None
    key = refusal_key(ctx.error_text, ctx.tool_input, ctx.tool)
    if key is None or (wall is not None and wall[0] == READ_ONLY_KEY and key != READ_ONLY_KEY):
        return None  # no refusal; or another beside a read-only sandbox, which still refuses every patch
    if wall is None or wall[0] != key or (key == PERMISSION_KEY and _other_mode(wall, ctx.permission_mode)):
        wall = [key, 0, [], 0.0, 0, 0.0]
        if key == HOOK_KEY:
            named = re.search(_HOOK_COMMAND, ctx.error_text[:2000])
            command = redact_prefix(named.group(1), QUOTE_CHARS) if named else ""
            wall.extend([ctx.agent.get("batch_seq", 0), command[:QUOTE_CHARS]])  # `SINCE`, `HOOK_COMMAND`
        slots(ctx.agent)[NAME] = wall
    if key == PERMISSION_KEY:
        # A deny rule's refusal names the command: such rules go by command prefix, so it says
        # nothing of another command of the same host (`curl -X POST` refused, a GET is not).
        by_rule = ctx.tool in SHELL_TOOLS and re.match(DENY_RULE_REFUSAL, ctx.error_text[:2000].lstrip()) is not None
        _targets(wall, REFUSED, None if by_rule else _target(ctx.tool, ctx.tool_input, ctx.config.path_keys))
        wall[MODE:] = [ctx.permission_mode]  # `_targets` made the room before it
    elif key == POLICY_KEY:
        named = re.search(_FORBIDS, ctx.error_text[:2000])
        _targets(wall, REFUSED, " ".join(named.group(1).split()) if named else None)
    elif key == SHELL_KEY and _look(wall) != TRIED:
        del wall[LOOK:]  # the shell failed again since the latest look
    if new_round(issued(ctx.call), float(wall[3])):  # issued after the model saw the latest refusal
        wall[1], wall[3] = int(wall[1]) + 1, ctx.agent["updated"]
    kinds = cast("list[str]", wall[2])
    kind = _kind(wall, ctx.tool, ctx.tool_input)
    if kind not in kinds:
        kinds.append(kind)
        del kinds[:-MAX_KINDS]
    rounds = int(wall[1])
    if wall[0] == HOOK_KEY and not wall[4] and rounds >= 2 and len(kinds) >= HOOK_STOP_KINDS and _refused_whole(ctx.agent, wall):
        # Replies refused whole, of many kinds, before it stood: a reminder now would come after
        # the loop. The wall stays, reminded: a call sent with no prompt first is denied.
        wall[4] = 1
        hook, refused = _hook_named(wall), _named(kinds)
        text = hook_stop(rounds, refused, ends_turn=True, pauses=False, denied=False)
        reason = f"{PREFIX} ended the turn: {hook} cannot start and refused every call. Send a new message to continue."
        advice = hook_reminder(refused, quote(redact_prefix(ctx.error_text, QUOTE_CHARS + 1), QUOTE_CHARS))
        return Decision(Action.STOP, Rule.WALL, text, stop_reason=reason, advice=advice, times=rounds, tool=ctx.tool)
    # a broken hook: its kinds are the proof in its first round; later, as any wall's
    rounds_needed = 1 if wall[0] == HOOK_KEY and rounds == 1 else threshold
    if wall[4] or rounds < rounds_needed or (len(kinds) < MIN_KINDS and wall[0] not in (SHELL_KEY, READ_ONLY_KEY)):
        return None
    wall[4] = 1
    if wall[0] == READ_ONLY_KEY:
        said = quote(redact_prefix(ctx.error_text, QUOTE_CHARS + 1), QUOTE_CHARS)
        return Decision(Action.REMIND, Rule.WALL, read_only_reminder(int(wall[1]), said), times=int(wall[1]), tool=ctx.tool)
    if wall[0] == POLICY_KEY:
        said = quote(redact_prefix(ctx.error_text, QUOTE_CHARS + 1), QUOTE_CHARS)
        text = policy_reminder(int(wall[1]), _targets(wall, REFUSED), said)
        return Decision(Action.REMIND, Rule.WALL, text, times=int(wall[1]), tool=ctx.tool)
    if wall[0] == PERMISSION_KEY:
        if re.match(DENY_RULE_REFUSAL, ctx.error_text[:2000].lstrip()):  # the user's deny rules, by command
            text = permission_rule_reminder(int(wall[1]), _named(kinds))
        else:
            text = permission_reminder(int(wall[1]), _named(kinds))
        return Decision(Action.REMIND, Rule.WALL, text, times=int(wall[1]), tool=ctx.tool)
    shown = quote(redact_prefix(ctx.error_text, QUOTE_CHARS + 1), QUOTE_CHARS)
    if wall[0] == HOOK_KEY:
        return Decision(Action.REMIND, Rule.WALL, hook_reminder(_named(kinds), shown), times=rounds, tool=ctx.tool)
    text = wall_reminder(int(wall[1]), shown, shell=wall[0] == SHELL_KEY)
    return Decision(Action.REMIND, Rule.WALL, text, times=int(wall[1]), tool=ctx.tool)


def on_call(ctx: CallContext) -> Decision | None:
    """After the reminder, deny the next call of a refused tool; a round after that, end the turn."""
    wall = _wall(ctx.agent)
    if wall is None or not wall[4] or ctx.event.event != "PreToolUse" or not ctx.config.refused_remind_at:
        return None
    if ctx.call.get("retry"):
        return None  # a refused call run again, escalated (Codex asks for more permissions): a way out
    kinds = cast("list[str]", wall[2])
    permission = wall[0] == PERMISSION_KEY
    if permission:
        if _other_mode(wall, ctx.event.permission_mode):
            drop_slot(ctx.agent, NAME)  # another permission mode: what it refuses is not known yet
            return None
        # Refused by the permission system, what meets the same rule is: never what has worked.
        target = _target(ctx.tool, ctx.tool_input, ctx.config.path_keys)
        if target is None or target not in _targets(wall, REFUSED) or target in _targets(wall, WORKED):
            return None
    elif wall[0] == READ_ONLY_KEY:
        # Refused by a read-only sandbox, a patch is: every other call goes ahead.
        if _kind(wall, ctx.tool, ctx.tool_input) not in kinds:
            return None
    elif wall[0] == POLICY_KEY:
        # Refused by the execution policy, a command of which a part starts with a refused prefix
        # is, each time: nothing else is known to be, so the turn goes on.
        found = _prefixed(ctx.tool, ctx.tool_input, _targets(wall, REFUSED))
        if found is None:
            return None
        return Decision(Action.DENY, Rule.WALL, policy_denial(found), advice=policy_reminder(int(wall[1]), [found], ""))
    else:
        # Refused across tools, every call is; refused through one tool, the kinds it refused are
        # (its programs; the tool itself when its shell cannot start: `_kind`).
        tools = {k.split(":", 1)[0] for k in kinds}
        one_tool = len(tools) == 1 and len(kinds) <= MIN_KINDS
        if ctx.tool[:MAX_ID_CHARS] not in tools or (one_tool and _kind(wall, ctx.tool, ctx.tool_input) not in kinds):
            return None
    if wall[0] == SHELL_KEY and int(wall[4]) == 1 and _look(wall) == LOOKED:
        wall[LOOK] = TRIED  # reminded, not denied, and a look since its latest failure: it may have been mended
        return None
    rounds = int(wall[1])
    named = _named(kinds)
    shell = wall[0] == SHELL_KEY
    read_only = wall[0] == READ_ONLY_KEY
    hook = wall[0] == HOOK_KEY
    if permission:
        advice, denial = permission_reminder(rounds, named), permission_denial(rounds, named)
    elif read_only:
        advice, denial = read_only_reminder(rounds, ""), read_only_denial(rounds)
    elif hook:
        advice, denial = hook_reminder(named, ""), hook_denial(named)
    else:
        advice, denial = wall_reminder(rounds, "", shell=shell), wall_denial(rounds, shell=shell)
    if int(wall[4]) == 1:
        wall[4], wall[5] = 2, ctx.now
        return Decision(Action.DENY, Rule.WALL, denial, advice=advice, times=rounds)
    if ctx.now - float(wall[5]) <= ctx.config.parallel_window_seconds:
        # issued together with the denied call (one batch): denied with it
        return Decision(Action.DENY, Rule.WALL, denial, advice=advice, times=rounds)
    drop_slot(ctx.agent, NAME)  # the turn ends here: a call after it starts a wall of its own
    if permission:
        text = permission_stop(rounds, named, ends_turn=ctx.ends_turn, pauses=ctx.pauses_tools)
        why = "the permission system refuses these calls"
    elif read_only:
        text = read_only_stop(rounds, ends_turn=ctx.ends_turn, pauses=ctx.pauses_tools)
        why = "the read-only sandbox refuses every patch"
    elif hook:
        text = hook_stop(rounds, named, ends_turn=ctx.ends_turn, pauses=ctx.pauses_tools)
        why = f"{_hook_named(wall)} cannot start and refuses every call"
    else:
        text = wall_stop(rounds, ends_turn=ctx.ends_turn, pauses=ctx.pauses_tools, shell=shell)
        why = "every shell command failed the same way" if shell else "every call was refused the same way"
    reason = f"{PREFIX} ended the turn: {why}. Send a new message to continue."
    return Decision(Action.STOP, Rule.WALL, text, stop_reason=reason, advice=advice, times=rounds)


def _hook_named(wall: Wall) -> str:
    """A broken hook's wall's hook as the user's notice names it: `the hook [uv run x.py]`."""
    command = wall[HOOK_COMMAND] if len(wall) > HOOK_COMMAND and isinstance(wall[HOOK_COMMAND], str) else ""
    return f"the hook [{command}]" if command else "a hook"


def _refused_whole(agent: Agent, wall: Wall) -> bool:
    """Whether a broken hook's wall's rounds show every call it covers refused: no call of a tool
    it never refused came back a success since the batch before its first refusal (`SINCE`: Claude
    Code's PostToolBatch numbers them; with none seen, since the session began). Such a success,
    answered before the first refusal of its reply, left no wall to end: the hook covers other
    tools only (a hostile review). One of a refused tool came before the hook broke (corpus
    transcript 5aab28de: a `cd` ran, and the hook's relative path resolved no more); any success
    since the wall began has ended it already. An untracked call (TodoWrite) says nothing: its
    outcome is not recorded, refused or not."""
    since = wall[SINCE] if len(wall) > SINCE and type(wall[SINCE]) is int else None
    if since is None:
        return False
    tools = {str(k).split(":", 1)[0] for k in wall[2]}
    sigs = agent["sigs"]
    for call in agent["calls"].values():
        if call["phase"] != "done" or call["seq"] <= since or call.get("untracked"):
            continue
        sig = sigs.get(call["sig"])
        if sig is None or (not sig.get("failed") and sig.get("tool") not in tools):
            return False
    return True


def _look(wall: Wall) -> str | None:
    """A shell wall's `LOOKED` or `TRIED`, or None."""
    return wall[LOOK] if len(wall) > LOOK and wall[LOOK] in (LOOKED, TRIED) else None


def _other_mode(wall: Wall, mode: str | None) -> bool:
    """Whether `mode` (the event's `permission_mode`) is known and not the one the permission
    wall's latest refusal came in: refusals in two modes are two walls."""
    return mode is not None and len(wall) > MODE and wall[MODE] is not None and wall[MODE] != mode


def _kind(wall: Wall, tool: str, tool_input: Any) -> str:
    """A call's kind as its wall counts it: the tool alone for a shell that cannot start, else
    `kind_of` (a shell command by the program of its first command past `cd DIR` and the like:
    what an approval rule names, for a permission wall)."""
    if wall[0] == SHELL_KEY:
        return tool[:MAX_ID_CHARS]  # the tool failed before any program ran
    return kind_of(tool, tool_input)


def _targets(wall: Wall, index: int, target: str | None = None) -> list[str]:
    """A permission wall's targets that worked (`WORKED`) or were refused (`REFUSED`) since it
    began; `target`: one more (None: none)."""
    while len(wall) <= index:
        wall.append([])
    if not isinstance(wall[index], list) or not all(isinstance(t, str) for t in wall[index]):
        wall[index] = [t for t in wall[index] if isinstance(t, str)] if isinstance(wall[index], list) else []
    targets = cast("list[str]", wall[index])
    if target is not None and target not in targets:
        targets.append(target)
        del targets[:-MAX_KINDS]
    return targets


def _target(tool: str, tool_input: Any, path_keys: tuple[str, ...]) -> str | None:
    """What a call asks Claude Code's approval rules for, as far as one refusal says it will be
    refused again: the tool, for one approved as a whole (`_WHOLE_TOOLS`: WebSearch; an MCP tool,
    `Task` or `Skill` may be refused for its input, by a rule or a hook's `ask`); the tool and
    host (with its port) of a fetch; a shell command's fetching program (`_FETCHERS`: curl, wget…)
    and the host of the first URL it is given (`_command`). None for a tool given a path
    (approvals go by path) and any other shell command (by command prefix and path): such a call
    is never denied."""
    if not isinstance(tool_input, dict):
        return None
    if tool in SHELL_TOOLS:
        words = _command(tool_input)
        fetched = (w for n, w in enumerate(words) if n and words[n - 1] not in _OTHER_URL)
        host = next((found for w in fetched if (found := re.match(_URL_HOST, w))), None)
        program = words[0].rsplit("/", 1)[-1][:64] if words else ""
        if host is None or program not in _FETCHERS:
            return None
        return f"{tool[:MAX_ID_CHARS]}:{program}@{host.group(1).lower()}"
    if any(isinstance(tool_input.get(k), str) for k in path_keys):
        return None
    url = tool_input.get("url")
    if isinstance(url, str):
        host = re.match(_URL_HOST, url.strip()[:1024])
        return f"{tool[:MAX_ID_CHARS]}@{host.group(1).lower()}" if host else None
    return tool[:MAX_ID_CHARS] if tool in _WHOLE_TOOLS else None


def _command(tool_input: dict[str, Any]) -> list[str]:
    """The words of a shell call's first command, from its program on: past scene-setting
    commands (`cd DIR &&`, `cd DIR;`), assignments and wrappers (`sudo`, `nohup`, `exec`:
    `shellwords.WRAPPERS`; `shellwords.command_parts`: quotes kept whole, a `;` inside a quoted
    user agent is no separator), up to the next operator."""
    command = next((v for k in SHELL_KEYS if isinstance(v := tool_input.get(k), str)), "")
    return program_words(command_parts(command[:1024])[1])


def _prefixed(tool: str, tool_input: Any, prefixes: list[str]) -> str | None:
    """The first of `prefixes` (`git push`) that a command of a shell call starts with, each of
    its commands read past assignments and wrappers (`FOO=1 sudo git push`), its program by
    its name (`/usr/bin/git`); None for none, or another tool."""
    command = shell_command(tool, tool_input)
    if not prefixes or command is None:
        return None
    segment: list[str] = []
    for word in [*command_words(command[:4096]), ""]:
        if word and word not in OPERATORS:
            segment.append(word)
            continue
        words = program_words(segment)
        if words:
            words = [words[0].rsplit("/", 1)[-1], *words[1:]]
            found = next((p for p in prefixes if words[: len(p.split())] == p.split()), None)
            if found is not None:
                return found
        segment = []
    return None


#: Claude Code's tools that only look: their success says nothing of a shell that cannot start,
#: so it leaves that wall standing; any other success may have repaired it (a folder made, a
#: file moved) and ends it. (Its plan tool never reaches the rule: `exclude`.)
_LOOKS = frozenset({"Read", "LS", "Glob", "Grep", "WebSearch", "WebFetch", "NotebookRead"})

#: Programs that fetch the URL they are given: one refused for a host is refused for it again.
_FETCHERS = frozenset({"curl", "wget", "http", "https", "xh", "aria2c"})


def _named(kinds: list[str]) -> str:
    """The refused kinds as the model knows them: `WebSearch, WebFetch, curl (Bash)`."""
    return ", ".join(f"{k.split(':', 1)[1]} ({k.split(':', 1)[0]})" if ":" in k else k for k in kinds)


def fit(agent: Agent, share: Limits) -> None:
    """One wall: nothing to trim."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: the wall is forgotten."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def wall_reminder(rounds: int, error: str, *, shell: bool = False) -> str:
    """The wall stands: every kind of call is refused the same way (`shell`: the shell tool
    cannot start, `SHELL_UNAVAILABLE`)."""
    shown = f': """{error}"""' if error else ""
    if shell:
        head = f"[{PREFIX}] Every call of the last {rounds} rounds of shell commands failed the same way, whatever it ran"
        return f"{head}{shown}. {_SHELL_WAY}"
    head = f"[{PREFIX}] Every call of the last {rounds} rounds was refused the same way, whatever it was{shown}. "
    return head + (
        "The environment refuses these calls (a sandbox, a permission rule, a broken hook, no network): "
        "trying them another way will not succeed. Stop, and tell the user what is refused and what you need."
    )


#: What a wall of a shell that cannot start leaves (`SHELL_UNAVAILABLE`): the other tools.
_SHELL_WAY = (
    "Claude Code cannot make its own folder in the temporary directory, so every shell command fails before it "
    "runs, whatever it is: do not run shell commands. The other tools (Read, Edit, Write) still work; tell the "
    "user that folder must be writable (its owner or permissions) for the shell to work."
)


def wall_denial(rounds: int, *, shell: bool = False) -> str:
    """A call after the reminder: not run (`shell`: the shell tool cannot start)."""
    if shell:
        return (
            f"REPEAT_TOOL_BLOCKED: this call was not run: every call of the last {rounds} rounds of shell commands "
            "failed the same way, whatever it ran (loop guard policy, not a tool failure). It would fail too. "
        ) + _SHELL_WAY.rstrip(".")
    head = (
        f"REPEAT_TOOL_BLOCKED: this call was not run: every call of the last {rounds} rounds was refused "
        "the same way, whatever it was (loop guard policy, not a tool failure). It would be refused too. "
    )
    return head + "Stop calling tools for this and tell the user what is refused and what you need"


def wall_stop(rounds: int, *, ends_turn: bool, pauses: bool, shell: bool = False) -> str:
    """The round after the denial: the end of the turn, worded for what the host does (`shell`:
    a wall of a shell tool that cannot start)."""
    what = "of shell commands failed" if shell else "was refused"
    base = (
        f"REPEAT_TOOL_BLOCKED: every call of the last {rounds} rounds {what} the same way, also after a "
        "denial (loop guard policy, not a tool failure)"
    )
    return ended_turn(base, "tell the user what is refused and what you need", ends_turn=ends_turn, pauses=pauses)


def _replies(rounds: int) -> str:
    """`rounds` of calls, as the model knows them: its replies."""
    return "your last reply" if rounds == 1 else f"your last {rounds} replies"


#: What a broken hook's texts say to do: mend it with a tool it does not cover, or tell the user.
_HOOK_WAY = (
    "It refuses every call it covers, whatever the call: trying another way will not get through, nor writing "
    "a new hook with a tool it blocks. If a tool it does not cover can mend it (its script, or the settings that "
    "register it), do that once; otherwise stop calling tools and tell the user that this hook fails to start, "
    "so they can fix or remove it."
)


def hook_reminder(named: str, error: str) -> str:
    """A wall of another hook that cannot start (`HOOK_BROKEN`): `named`, the kinds it refused."""
    shown = f': """{error}"""' if error else ""
    return f"[{PREFIX}] A hook that cannot start refused your calls of {named}{shown}. {_HOOK_WAY}"


def hook_denial(named: str) -> str:
    """A call after the reminder of a broken hook's wall: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this call was not run: a hook that cannot start has refused your calls of {named} "
        "(loop guard policy, not a tool failure), and it would refuse this one too. " + _HOOK_WAY.rstrip(".")
    )


def hook_stop(rounds: int, named: str, *, ends_turn: bool, pauses: bool, denied: bool = True) -> str:
    """The end of the turn at a broken hook's wall: the round after its denial, or (not `denied`)
    where it first stood after `rounds` replies refused whole."""
    went_on = ", and the calls went on after a denial" if denied else f" in {_replies(rounds)}"
    base = (
        f"REPEAT_TOOL_BLOCKED: a hook that cannot start has refused your calls of {named}{went_on} "
        "(loop guard policy, not a tool failure)"
    )
    tell = "tell the user that the hook fails to start, so they can fix or remove it"
    return ended_turn(base, tell, ends_turn=ends_turn, pauses=pauses)


def read_only_reminder(rounds: int, said: str) -> str:
    """A wall of Codex's read-only sandbox (`READ_ONLY`): no patch can apply."""
    shown = f': """{said}"""' if said else ""
    return (
        f"[{PREFIX}] Codex's sandbox is read-only: it has refused {rounds} rounds of patches{shown}. No patch or "
        "other write can succeed in this session, whatever its form: do not try another way to write. Reading "
        "still works: finish what you can by reading, then tell the user what you would change, or ask them to "
        "allow writes."
    )


def read_only_denial(rounds: int) -> str:
    """A patch after the reminder: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this call was not run: Codex's read-only sandbox has refused {rounds} rounds of "
        "patches (loop guard policy, not a tool failure). It would be refused too. Tell the user what you would "
        "change, or ask them to allow writes"
    )


def read_only_stop(rounds: int, *, ends_turn: bool, pauses: bool) -> str:
    """The round of patches after the denial: the end of the turn, worded for what the host does."""
    base = (
        f"REPEAT_TOOL_BLOCKED: Codex's read-only sandbox has refused {rounds} rounds of patches, also after a "
        "denial (loop guard policy, not a tool failure)"
    )
    tell = "tell the user what you would change, or ask them to allow writes"
    return ended_turn(base, tell, ends_turn=ends_turn, pauses=pauses)


def policy_reminder(rounds: int, prefixes: list[str], said: str) -> str:
    """A wall of Codex's execution policy: what it refused, and that it will again."""
    shown = f': """{said}"""' if said else ""
    head = f"[{PREFIX}] Codex's execution policy has refused {rounds} rounds of commands before they ran{shown}. "
    if prefixes:
        named = ", ".join(f"`{p}`" for p in prefixes)
        return head + (
            f"It refuses commands that start with {named}, and will again: do what you need without them, or ask "
            "the user to allow them."
        )
    return head + "It does not say what else it refuses: do not try the same thing another way; ask the user what is allowed."


def policy_denial(prefix: str) -> str:
    """A command that starts with a prefix the policy refused: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this call was not run: Codex's execution policy refuses commands that start with "
        f"`{prefix}`, and has refused them already (loop guard policy, not a tool failure). It would be refused too: "
        "do what you need without it, or ask the user to allow it"
    )


def permission_reminder(rounds: int, named: str) -> str:
    """A permission wall stands: these kinds of call need an approval nobody gives here."""
    return (
        f"[{PREFIX}] The permission system has refused {named}, in {rounds} rounds of calls: these calls "
        "need an approval nobody can give here, and every such call will be refused the same way, whatever "
        "its arguments. Do the work with the tools that run, or stop and tell the user which permission you need."
    )


def permission_rule_reminder(rounds: int, named: str) -> str:
    """A permission wall whose latest refusal is a deny rule's: the user's rules refuse these
    commands by how they start, not every call of their programs, and the user can change them."""
    return (
        f"[{PREFIX}] The permission settings have refused {named}, in {rounds} rounds of calls: deny rules "
        "refuse these commands by how they start, and will refuse them however they are sent again. If the task "
        "needs them, tell the user which commands to allow and why, and end your turn; otherwise go on with what "
        "they do not block."
    )


def permission_denial(rounds: int, named: str) -> str:
    """A refused kind called after the reminder: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this call was not run: the permission system has refused {named}, in {rounds} "
        "rounds of calls (loop guard policy, not a tool failure), and it would refuse this call too. Do the "
        "work with the tools that run, or stop and tell the user which permission you need"
    )


def permission_stop(rounds: int, named: str, *, ends_turn: bool, pauses: bool) -> str:
    """A refused kind called again after the denial: the end of the turn."""
    base = (
        f"REPEAT_TOOL_BLOCKED: the permission system refuses {named}, and the calls went on after a denial "
        f"({rounds} rounds; loop guard policy, not a tool failure)"
    )
    return ended_turn(base, "tell the user which permission you need", ends_turn=ends_turn, pauses=pauses)


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("hook_stop", "REPEAT_TOOL_BLOCKED: a hook that cannot start has refused your calls of ", ""),
    ("hook_denial", "REPEAT_TOOL_BLOCKED: this call was not run: a hook that cannot start ", ""),
    ("hook_reminder", f"[{PREFIX}] A hook that cannot start refused your calls of ", ""),
    ("wall_stop", "REPEAT_TOOL_BLOCKED: every call of the last ", ""),
    ("wall_denial", "REPEAT_TOOL_BLOCKED: this call was not run: every call of the last ", ""),
    ("wall_reminder", f"[{PREFIX}] Every call of the last ", ""),
    ("permission_stop", "REPEAT_TOOL_BLOCKED: the permission system refuses ", ""),
    ("permission_denial", "REPEAT_TOOL_BLOCKED: this call was not run: the permission system has refused ", ""),
    ("permission_reminder", f"[{PREFIX}] The permission system has refused ", ""),
    ("permission_rule_reminder", f"[{PREFIX}] The permission settings have refused ", ""),
    ("policy_denial", "REPEAT_TOOL_BLOCKED: this call was not run: Codex's execution policy refuses ", ""),
    ("read_only_stop", "REPEAT_TOOL_BLOCKED: Codex's read-only sandbox has refused ", ""),
    ("read_only_denial", "REPEAT_TOOL_BLOCKED: this call was not run: Codex's read-only sandbox ", ""),
    ("read_only_reminder", f"[{PREFIX}] Codex's sandbox is read-only: ", ""),
    ("policy_reminder", f"[{PREFIX}] Codex's execution policy has refused ", ""),
)
