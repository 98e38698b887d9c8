"""What the core asks of a host: its capability table (data) and how its results read.

The host layer passes the host's module (`hosts/`, one per wire dialect) into the core step, so
the core never imports the host layer and never tests a host's name. Pure values.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .event import Client
from .outcome import Outcome
from .verdict import Decision


class Capabilities(NamedTuple):
    """Which output forms reach the model (or the user) on which hook event, and what the host
    sends. Every field is a fact verified against the real client (see each client module).

    Output forms, each the set of events on which it takes effect:

    - `context`: `hookSpecificOutput.additionalContext` reaches the model;
    - `deny`: `permissionDecision: "deny"` stops the call and the model reads the reason;
    - `end_turn`: `continue: false` (+ `stopReason`) ends the turn;
    - `block`: top-level `decision: "block"` + `reason` reaches the model;
    - `system_message`: `systemMessage` reaches the user (never the model).

    What the host sends:

    - `sends`: the hook events it fires at all;
    - `context_returns_as_prompt`: injected context comes back as a `UserPromptSubmit` whose
      `prompt` is that text;
    - `denied_call_reports_result`: a denied call still gets a `PostToolUse`, its result the denial;
    - `arguments`: the tools whose `tool_input` carries the model's arguments; None = every tool;
    - `subagent_transcripts`: a subagent's text is in its own transcript (`agent_transcript_path`),
      not in `transcript_path`;
    - `transcript_text`: `transcript_path` is a JSONL file the guard reads assistant text from;
    - `session_log`: `transcript_path` is DSH's zstd session log instead, read at Stop (`dshlog`);
    - `unhooked_polls`: the transcript also shows calls that fire no hook (Codex `write_stdin`
      polls of a running command), read at each event (`hosts/rollout.py`, `rules/unhooked.py`);
    - `workspace_state`: the host runs hooks in a sandbox that lets them write only the
      workspace, so the default state goes to `<cwd>/.loopguard-hook/` (`location.choose`);
    - `turn_end_fallback`: what an end of turn becomes on an event not in `end_turn`: `"deny"`
      (the call is denied, the text says it is final) or `"answer_only"` (the call is denied and
      so is every further tool call until a real user prompt);
    - `fails_closed`: the host reads a failing hook (exit 1, a crash, output it cannot parse) as
      a denial: every path must end with exit 0 and nothing, or one valid answer;
    - `halts_at`: the host halts the run itself at this many identical calls in a row (0: never),
      so the guard reminds and denies before it (`policy.for_host`);
    - `quiet_failures`: the host shows a failing hook's stderr to the model (Droid prepends it to
      the tool result), so a failure exits 0 with nothing on stderr and goes to the log instead,
      as on a host that `fails_closed`;
    - `stop_skips_interrupts`: Stop fires at the end of every turn but not when the user
      interrupts one, so a prompt that comes while the turn has tool events and no Stop since
      follows an interrupted turn (`policy.resumes`);
    - `cwd_is_workdir`: a tool event's `cwd` is the call's own folder (Codex 0.171.0 applies
      `exec_command`'s `workdir` to it and leaves `workdir` out of `tool_input`, checked with the
      real client here), so a shell call's signature includes it (`progress.open_attempt`):
      `cat notes.txt` in `a/` and in `b/` are two calls;
    - `unmarked_subagents`: a subagent's tool events carry the parent's session and nothing that
      marks them (Gemini CLI 0.61.0: they come between the parent's BeforeTool and AfterTool of
      `invoke_agent`), so while the main agent waits on subagents its tool events are theirs
      (`engine.SUBAGENTS`);
    - `shows_stop_reason`: the user reads an end of turn's top-level `stopReason` (Claude Code in
      its terminal, research/claude-code-hooks.md; Gemini CLI on stderr, `Agent execution stopped
      by hook: …`), so `log` may say what the user was shown (Droid ends the turn silently).
    """

    context: frozenset[str]
    deny: frozenset[str]
    end_turn: frozenset[str]
    block: frozenset[str]
    system_message: frozenset[str]
    sends: frozenset[str]
    context_returns_as_prompt: bool = False
    denied_call_reports_result: bool = False
    arguments: frozenset[str] | None = None
    subagent_transcripts: bool = False
    transcript_text: bool = True
    session_log: bool = False
    unhooked_polls: bool = False
    workspace_state: bool = False
    turn_end_fallback: str = "deny"
    fails_closed: bool = False
    halts_at: int = 0
    quiet_failures: bool = False
    stop_skips_interrupts: bool = False
    cwd_is_workdir: bool = False
    shows_stop_reason: bool = False
    unmarked_subagents: bool = False

    @property
    def failures_exit_0(self) -> bool:
        """Whether every failure of the hook here ends with exit 0 and nothing on stderr, its line
        going to `errors.log` (`fails_closed` or `quiet_failures`)."""
        return self.fails_closed or self.quiet_failures

    def has_arguments(self, tool: str) -> bool:
        """Whether this client's `tool_input` for `tool` carries the model's arguments."""
        return self.arguments is None or tool in self.arguments


if TYPE_CHECKING:  # a protocol for the type checker; defining it would cost every hook start

    class Dialect(Protocol):
        """The names a client module defines (the modules themselves implement this protocol)."""

        @property
        def CLIENT(self) -> Client: ...  # noqa: N802 (a module constant)

        @property
        def CAPABILITIES(self) -> Capabilities: ...  # noqa: N802

        def recognises(self, data: Mapping[str, Any]) -> bool:
            """Whether a decoded payload was sent by this client."""
            ...

        def normalise(self, data: dict[str, Any], event: str | None) -> dict[str, Any]:
            """The payload with the fields the guard reads named as Claude Code names them
            (`hook_event_name`, `session_id`, `tool_name`, `tool_input`, `tool_response`…);
            `event` is the hook event the command line names, for a host whose payloads do not."""
            ...

        def outcome(self, tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
            """A `PostToolUse` `tool_response` as an outcome, with this client's failure signs
            (`now`: the event's time in epoch seconds, `outcome.outcome_fingerprint`)."""
            ...

        def denied_in_batch(self, text: str) -> bool:
            """Whether a batch entry's result text is a hook's denial (the call never ran)."""
            ...

        def cancelled_in_batch(self, text: str) -> bool:
            """Whether a batch entry's result text says the host cancelled the call (never ran)."""
            ...

        def wire(self, decision: Decision, event: str) -> dict[str, Any] | None:
            """The JSON object to print for `decision` on `event`, or None to print nothing."""
            ...


