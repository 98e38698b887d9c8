"""Replay a recorded session through the detection engine: what would the guard have done?

Three kinds of file are read, the format found from the lines themselves (`readers.READERS`):

- a **Claude Code transcript** (`claude_code`);
- a **Codex rollout** (`codex`);
- a **hook payload log** (`payload_log`): one hook payload per line.

A transcript or rollout is turned into the hook payloads the live client would have sent, in the
order it would have sent them, each with a time in seconds since the epoch; those are fed to
`engine.apply` on a scratch in-memory ledger exactly as `hook.run` would (`payload.parse`, the
ledger written back as JSON after every event, `SessionEnd` forgetting the session), together
with the assistant text the live hook would have found newly written to the transcript at that
moment (text-loop rules). Feeding the same payload sequence through the live hook with a clock
giving the same times, while the transcript grows line by line, yields the same decisions
(`tests/test_replay.py`): `decide` (`driver`) is that loop, `replay` (`run`) summarises it per
tool call into a `Report` (`report`), and `render` (`renderers`) writes reports as text or JSON.

Malformed lines and a truncated last line are skipped and counted; records of types the replay
does not use (API request logs, attachments, token counts, new kinds) are passed over.

Layout (each module imports only modules named before it): `model` (recordings), `jsonl` (line
reading), `reader` (the `Reader` shape), the readers (`claude_code` with `claude_code_stream` and
`claude_code_tools`, `codex` with `codex_stream` and `codex_tools`, `payload_log`), `readers` (the
list), `driver` (the engine on scratch ledgers), `report` (the report model), `run` (recordings
to reports), `style` (colour), `render_json`, `render_text`, `render_summary`, `renderers`;
`labels` (labelled loops and scoring against them) and `sweep` (a grid of settings) on top.
"""

from __future__ import annotations

from ..core.shellwords import reads_only as bash_is_read_only
from .claude_code_tools import CLAUDE_CONCURRENT_TOOLS, classify_claude_result, structured_result
from .codex_tools import CODEX_UNHOOKED_TOOLS, split_exec_output
from .driver import Step, decide
from .model import RAN_OUTCOMES, SYNTHETIC_STEP, Format, Outcome, RecordedCall, RecordedEvent, Recording, ReplayError
from .readers import READERS, SNIFF_LINES, load, read_transcript, sniff
from .render_json import to_json
from .render_summary import format_summary
from .render_text import format_text
from .renderers import each_text, render
from .report import ARGUMENT_CHARS, CallReport, Calls, DecisionReport, Marker, Report, Summary, Verdict, arguments_summary
from .run import replay, replay_each, replay_files, replay_payloads

__all__ = [
    "ARGUMENT_CHARS",
    "CLAUDE_CONCURRENT_TOOLS",
    "CODEX_UNHOOKED_TOOLS",
    "RAN_OUTCOMES",
    "READERS",
    "SNIFF_LINES",
    "SYNTHETIC_STEP",
    "CallReport",
    "Calls",
    "DecisionReport",
    "Format",
    "Marker",
    "Outcome",
    "RecordedCall",
    "RecordedEvent",
    "Recording",
    "ReplayError",
    "Report",
    "Step",
    "Summary",
    "Verdict",
    "arguments_summary",
    "bash_is_read_only",
    "classify_claude_result",
    "decide",
    "each_text",
    "format_summary",
    "format_text",
    "load",
    "read_transcript",
    "render",
    "replay",
    "replay_each",
    "replay_files",
    "replay_payloads",
    "sniff",
    "split_exec_output",
    "structured_result",
    "to_json",
]
