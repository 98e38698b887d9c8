"""The host modules on the real DeepSeek Harness (dsh 0.1.0-rc.8 headless), through both bridges:
each module's part checked on what DSH sent, wrote and showed the model.

- `hosts/dsh_claude_code.py` and `hosts/dsh_codex.py`: each bridge's payloads are told apart and
  the session is kept under that bridge's client;
- `hosts/render.py`: the denial the model received is the text `render` puts on the wire;
- `hosts/dshlog.py`: DSH's own zstd session log, as the Stop hook reads it, holds the turn's
  final assistant text.
"""

from __future__ import annotations

import json

import pytest

from loopguard_hook.core.verdict import Action, Decision, Rule
from loopguard_hook.hosts import dsh_claude_code, dsh_codex, dshlog, render

from . import scenarios
from .conftest import RunScenario
from .driver import BRIDGES
from .model_view import calls
from .session_log import session_logs

pytestmark = pytest.mark.e2e

MODULES = {"claude-code": dsh_claude_code, "codex": dsh_codex}


@pytest.mark.parametrize("bridge", BRIDGES)
def test_each_bridge_module_keeps_its_session_and_renders_the_denial_the_model_reads(
    scenario_run: RunScenario, bridge: str
) -> None:
    run = scenario_run(bridge, scenarios.same_read(5))
    module = MODULES[bridge]
    assert run.state_dir is not None
    (ledger_file,) = (run.state_dir / "sessions").glob("*.json")
    assert json.loads(ledger_file.read_bytes())["client"] == module.CLIENT.value, run.describe()

    records = [json.loads(line) for line in (run.state_dir / "decisions.jsonl").read_text().splitlines()]
    denials = [r for r in records if r["action"] == "deny"]
    assert denials and denials[0]["client"] == module.CLIENT.value, run.describe()
    fifth = calls(run.conversation("main"))[4]
    wire = json.loads(render.render(Decision(Action.DENY, Rule.REPEAT, denials[0]["text"]), "PreToolUse", module.CLIENT))
    reason = wire["hookSpecificOutput"]["permissionDecisionReason"]
    assert fifth.denied and reason.startswith("REPEAT_TOOL_BLOCKED") and reason in fifth.result, (
        fifth.result[:300], reason[:300], run.describe())

    logs = session_logs(run.root / "dsh_home")
    assert logs, run.describe()
    found = dshlog.read_new_texts({}, str(logs[-1]), 16 << 20)
    assert any("Notes summarised." in text for _, text in found.texts), (found.texts[-3:], run.describe())
