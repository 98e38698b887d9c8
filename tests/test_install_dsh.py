"""`install --client dsh-claude-code|dsh-codex`: the hooks config and the patch-layer rows that
mount a DSH hook bridge, and `uninstall` taking exactly those out again.

Every test works on real files in temp directories: a fake DSH home, and fake bridge packages
laid out as npm installs them (`node_modules/@deepseek-ai/<bridge>/{package.json,lib/index.js}`,
`node_modules/.bin/dsh` linking to the launcher). The rows themselves were checked against the
real dsh 0.1.0-rc.8 (both bridges fire every mapped event on them).
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopguard_hook import install
from loopguard_hook.cli import cli
from loopguard_hook.install import (
    DSH_CLAUDE_CODE,
    DSH_CODEX,
    InstallError,
    apply,
    format_report,
    plan_dsh_install,
    plan_dsh_uninstall,
)
from loopguard_hook.install.dsh_service import SERVICE_SOURCE

NOW = datetime(2026, 12, 1, 15, 0, 0)
CC_PACKAGE = "@deepseek-ai/dsh-hooks-claude-code"
CODEX_PACKAGE = "@deepseek-ai/dsh-hooks-codex"

#: The profile patch layer dsh 0.1.0-rc.8 writes when it creates a profile (`dsh-app-boot`).
TEMPLATE = """\
# Your patch layer for this dsh profile, applied after every bundle layer:
# a top-level YAML array of loader patch entries (id-targeted config
# overrides, disables, and insert lists; `!!js` expressions allowed).
[]
"""

USER_ROWS = """\
# my own settings
- id: repeat-tool-reminder
  disabled: true
- insert:
    - id: my-plugin
      name: "/opt/plugins/mine.js"
"""


def fake_package(node_modules: Path, package: str, version: str, source: str = "") -> Path:
    folder = node_modules / package
    (folder / "lib").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": package, "version": version}))
    entry = folder / "lib" / "index.js"
    entry.write_text(source or f"const name = {json.dumps(package)};\n")
    return entry


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, Any]:
    """A home with no DSH home yet, and a prefix install of dsh with both bridges beside it."""
    home = tmp_path / "home"
    home.mkdir()
    modules = tmp_path / "prefix" / "node_modules"
    launcher = fake_package(modules, "@deepseek-ai/dsh", "0.1.0-rc.8").with_name("bin.js")
    launcher.write_text("#!/usr/bin/env node\n")
    launcher.chmod(0o755)
    (modules / ".bin").mkdir()
    (modules / ".bin" / "dsh").symlink_to(Path("..") / "@deepseek-ai" / "dsh" / "lib" / "bin.js")
    cc = fake_package(modules, CC_PACKAGE, "0.0.1-rc.5", 'const inject = ["shell"];\n')
    codex = fake_package(modules, CODEX_PACKAGE, "0.0.1-rc.1", 'const inject = ["bash"];\n')
    env = {"PATH": str(modules / ".bin")}
    return {"home": home, "env": env, "cc": cc, "codex": codex, "dsh": home / ".dsh"}


def install_dsh(machine: dict[str, Any], client: str, **kw: Any) -> list[install.Change]:
    return apply(plan_dsh_install(client, home=machine["home"], env=machine["env"], **kw), now=NOW)


def uninstall_dsh(machine: dict[str, Any], client: str, **kw: Any) -> list[install.Change]:
    return apply(plan_dsh_uninstall(client, home=machine["home"], env=machine["env"], **kw), now=NOW)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- what is written ---------------------------------------------------------------------------


def test_claude_code_bridge_hooks_config_and_rows(machine: dict[str, Any]) -> None:
    hooks_change, patch_change = install_dsh(machine, DSH_CLAUDE_CODE)
    hooks_file = machine["dsh"] / "loopguard-hook" / "hooks-claude-code.json"
    assert hooks_change.path == hooks_file and patch_change.path == machine["dsh"] / "cordis.patch.yml"
    hooks = json.loads(hooks_file.read_text())["hooks"]
    assert list(hooks) == [
        "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop", "SubagentStart", "SubagentStop"
    ]
    for event, groups in hooks.items():
        assert groups == [
            {
                **({"matcher": "*"} if event in ("PreToolUse", "PostToolUse") else {}),
                "hooks": [{"type": "command", "command": "loopguard-hook", "timeout": 10}],
            }
        ]
    text = patch_change.path.read_text()
    assert text.splitlines()[1:-1] == [
        "- insert:",
        "    - id: loopguard-hook-dsh-claude-code",
        f"      name: {json.dumps(str(machine['cc']))}",
        "      config:",
        f"        configPath: {json.dumps(str(hooks_file))}",
    ]
    assert text.startswith("# >>> loopguard-hook dsh-claude-code") and text.endswith("# <<< loopguard-hook dsh-claude-code\n")


def test_codex_bridge_registers_its_five_events_and_gets_its_bash_service(machine: dict[str, Any]) -> None:
    hooks_change, service_change, patch_change = install_dsh(machine, DSH_CODEX)
    assert list(json.loads(hooks_change.path.read_text())["hooks"]) == [
        "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"
    ]
    service = machine["dsh"] / "loopguard-hook" / "dsh-bash-service.mjs"
    assert service_change.path == service and service.read_text() == SERVICE_SOURCE
    assert "ctx.provide('bash'" in SERVICE_SOURCE and "export const inject = ['shell']" in SERVICE_SOURCE
    hooks_file = machine["dsh"] / "loopguard-hook" / "hooks-codex.json"
    assert patch_change.path.read_text().splitlines()[1:-1] == [
        "- insert:",
        "    - id: loopguard-hook-dsh-codex",
        f"      name: {json.dumps(str(machine['codex']))}",
        "      config:",
        f"        configPath: {json.dumps(str(hooks_file))}",
        "    - id: loopguard-hook-dsh-codex-bash-service",
        f"      name: {json.dumps(str(service))}",
    ]
    assert any("and the `bash` service it waits for" in m for m in patch_change.messages)
    assert not any("waiting for service" in m for m in patch_change.messages if m.startswith("warning"))
    assert all(not c.changed for c in plan_dsh_install(DSH_CODEX, home=machine["home"], env=machine["env"]))


@pytest.mark.parametrize("tool", ["read", "bash", "edit", "write", "grep", "glob", "todo_write", "subagent"])
def test_tool_matchers_fire_on_dsh_lower_case_names(tool: str) -> None:
    """The bridges test a matcher as a case-sensitive unanchored regex, and treat absent, `""`
    and `"*"` as match-all (dsh-hook-protocol 0.0.1-rc.1 `isMatchAll`)."""
    import re

    for client in (DSH_CLAUDE_CODE, DSH_CODEX):
        for event in ("PreToolUse", "PostToolUse"):
            [group] = install.dsh_hooks_table(client)[event]
            matcher = group.get("matcher")
            assert matcher in (None, "", "*") or re.search(matcher, tool)


def test_the_hook_command_is_the_canonical_one() -> None:
    for client in (DSH_CLAUDE_CODE, DSH_CODEX):
        commands = {h["command"] for groups in install.dsh_hooks_table(client).values() for g in groups for h in g["hooks"]}
        assert commands == {install.CANONICAL_COMMAND}


def test_dsh_home_from_the_environment(machine: dict[str, Any], tmp_path: Path) -> None:
    machine["env"]["DSH_HOME"] = str(tmp_path / "elsewhere")
    _, patch_change = install_dsh(machine, DSH_CLAUDE_CODE)
    assert patch_change.path == tmp_path / "elsewhere" / "cordis.patch.yml"
    machine["env"]["DSH_HOME"] = "   "  # blank counts as unset, as in dsh-home-paths
    _, patch_change = plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"])
    assert patch_change.path == machine["dsh"] / "cordis.patch.yml"


# -- idempotence, dry run, backups -------------------------------------------------------------


def test_second_install_changes_nothing(machine: dict[str, Any]) -> None:
    install_dsh(machine, DSH_CLAUDE_CODE)
    before = files(machine["dsh"])
    again = install_dsh(machine, DSH_CLAUDE_CODE)
    assert not any(c.changed or c.written for c in again)
    assert files(machine["dsh"]) == before
    assert "already registered; nothing to change" in again[0].messages[0]
    assert "already mounted; nothing to change" in again[1].messages[0]


def test_dry_run_plan_writes_nothing(machine: dict[str, Any]) -> None:
    changes = plan_dsh_install(DSH_CODEX, home=machine["home"], env=machine["env"])
    assert all(c.changed for c in changes)
    assert not machine["dsh"].exists()
    report = format_report(changes, dry_run=True)
    assert f"dry run: {changes[0].path} not written (a new file of" in report
    assert "--- /dev/null" not in report  # a new file is summarised, not printed


def test_existing_layer_gets_a_backup_and_a_diff(machine: dict[str, Any]) -> None:
    layer = machine["dsh"] / "cordis.patch.yml"
    layer.parent.mkdir(parents=True)
    layer.write_text(USER_ROWS)
    _, patch_change = install_dsh(machine, DSH_CLAUDE_CODE)
    assert patch_change.backup == layer.with_name("cordis.patch.yml.bak-loopguard-20261201150000")
    assert patch_change.backup.read_text() == USER_ROWS
    assert layer.read_text().startswith(USER_ROWS)
    report = format_report([patch_change])
    assert f"--- {layer}\n+++ {layer}\n" in report and "+- insert:" in report


def test_moved_bridge_rewrites_the_block_in_place(machine: dict[str, Any], tmp_path: Path) -> None:
    layer = machine["dsh"] / "cordis.patch.yml"
    layer.parent.mkdir(parents=True)
    layer.write_text(USER_ROWS)
    install_dsh(machine, DSH_CLAUDE_CODE)
    other = fake_package(tmp_path / "other" / "node_modules", CC_PACKAGE, "0.0.1-rc.6")
    _, patch_change = install_dsh(machine, DSH_CLAUDE_CODE, bridge_path=other.parent.parent)
    text = layer.read_text()
    assert text.count("# >>> loopguard-hook dsh-claude-code") == 1 and json.dumps(str(other)) in text
    # a later plain install keeps the bridge the block names while it exists
    assert not any(c.changed for c in plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"]))


# -- uninstall ----------------------------------------------------------------------------------


def test_uninstall_removes_what_install_created(machine: dict[str, Any]) -> None:
    install_dsh(machine, DSH_CLAUDE_CODE)
    done = uninstall_dsh(machine, DSH_CLAUDE_CODE)
    assert all(c.written and c.new_text is None for c in done)
    left = files(machine["dsh"])
    assert all(".bak-" in name for name in left), left  # only the backups stay
    assert "deleted " in format_report(done)


@pytest.mark.parametrize("original", [TEMPLATE, USER_ROWS, "[]\n", TEMPLATE.replace("\n", "\r\n")])
def test_uninstall_restores_the_layer_byte_for_byte(machine: dict[str, Any], original: str) -> None:
    layer = machine["dsh"] / "profiles" / "headless" / "cordis.patch.yml"
    layer.parent.mkdir(parents=True)
    layer.write_bytes(original.encode())
    install_dsh(machine, DSH_CODEX, profile="headless")
    assert b"loopguard-hook-dsh-codex" in layer.read_bytes()
    uninstall_dsh(machine, DSH_CODEX, profile="headless")
    assert layer.read_bytes() == original.encode()


def test_uninstall_keeps_other_hooks_in_the_config(machine: dict[str, Any]) -> None:
    install_dsh(machine, DSH_CLAUDE_CODE)
    hooks_file = machine["dsh"] / "loopguard-hook" / "hooks-claude-code.json"
    data = json.loads(hooks_file.read_text())
    data["hooks"]["PreToolUse"].append({"matcher": "bash", "hooks": [{"type": "command", "command": "audit.sh"}]})
    hooks_file.write_text(json.dumps(data, indent=2) + "\n")
    uninstall_dsh(machine, DSH_CLAUDE_CODE)
    assert json.loads(hooks_file.read_text()) == {
        "hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]}
    }


def test_uninstall_without_install_changes_nothing(machine: dict[str, Any]) -> None:
    changes = uninstall_dsh(machine, DSH_CODEX)
    assert not any(c.changed for c in changes)
    assert "(absent)" in changes[0].messages[0] and "not mounted there" in changes[1].messages[0]
    assert not machine["dsh"].exists()


def test_uninstall_of_one_bridge_leaves_the_other(machine: dict[str, Any]) -> None:
    install_dsh(machine, DSH_CLAUDE_CODE)
    install_dsh(machine, DSH_CODEX)
    uninstall_dsh(machine, DSH_CODEX)
    text = (machine["dsh"] / "cordis.patch.yml").read_text()
    assert "loopguard-hook-dsh-claude-code" in text and "dsh-codex" not in text


@pytest.mark.parametrize("layer", [None, USER_ROWS])
@pytest.mark.parametrize("first_out", [DSH_CLAUDE_CODE, DSH_CODEX])
def test_both_bridges_in_and_out_leave_the_layer_as_it_was_and_no_backup(
    machine: dict[str, Any], layer: str | None, first_out: str
) -> None:
    """Both bridges share one patch layer: whichever is uninstalled first, the layer ends as it
    was before either install (absent, or the user's rows byte for byte) with no backup beside
    it; the backups made on the way held nothing but the guard's own rows."""
    patch = machine["dsh"] / "cordis.patch.yml"
    if layer is not None:
        patch.parent.mkdir(parents=True)
        patch.write_text(layer)
    for i, client in enumerate((DSH_CLAUDE_CODE, DSH_CODEX)):
        apply(plan_dsh_install(client, home=machine["home"], env=machine["env"]), now=NOW.replace(second=i))
    second_out = DSH_CODEX if first_out == DSH_CLAUDE_CODE else DSH_CLAUDE_CODE
    for i, client in enumerate((first_out, second_out)):
        plan = plan_dsh_uninstall(client, home=machine["home"], env=machine["env"])
        done = apply(plan, now=NOW.replace(minute=1, second=i), undo=True)
        assert not any(c.backup for c in done), format_report(done)
    left = files(machine["dsh"])
    if layer is None:
        assert left == {}, left
    else:
        assert left == {"cordis.patch.yml": layer.encode()}, left


def test_a_layer_edited_between_install_and_uninstall_keeps_the_text_before_install(machine: dict[str, Any]) -> None:
    patch = machine["dsh"] / "cordis.patch.yml"
    patch.parent.mkdir(parents=True)
    patch.write_text(USER_ROWS)
    install_dsh(machine, DSH_CLAUDE_CODE)
    patch.write_text(patch.read_text() + "- id: mine\n  disabled: true\n")
    apply(plan_dsh_uninstall(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"]), now=NOW.replace(minute=1), undo=True)
    assert "loopguard-hook" not in patch.read_text() and patch.read_text().endswith("- id: mine\n  disabled: true\n")
    assert [p.read_text() for p in machine["dsh"].glob("cordis.patch.yml.bak-*")] == [USER_ROWS]


# -- refusals and warnings ----------------------------------------------------------------------


@pytest.mark.parametrize("text", ['[{id: hmr, disabled: false}]\n', "hmr:\n  disabled: false\n", "---\n- id: x\n"])
def test_a_list_it_cannot_extend_is_refused(machine: dict[str, Any], text: str) -> None:
    layer = machine["dsh"] / "cordis.patch.yml"
    layer.parent.mkdir(parents=True)
    layer.write_text(text)
    with pytest.raises(InstallError, match="add them by hand:\n# >>> loopguard-hook dsh-claude-code"):
        plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"])
    assert layer.read_text() == text


def test_no_bridge_found_says_how_to_install_it(machine: dict[str, Any]) -> None:
    machine["env"]["PATH"] = "/nonexistent"
    with pytest.raises(InstallError, match=r"npm install -g @deepseek-ai/dsh-hooks-codex .*--bridge-path"):
        plan_dsh_install(DSH_CODEX, home=machine["home"], env=machine["env"])
    with pytest.raises(InstallError, match="no such file"):
        plan_dsh_install(DSH_CODEX, home=machine["home"], env=machine["env"], bridge_path="/nonexistent/index.js")


def test_bridge_in_a_profile_is_found_first(machine: dict[str, Any]) -> None:
    modules = machine["dsh"] / "profiles" / "tui" / "node_modules"
    entry = fake_package(modules, CC_PACKAGE, "0.0.1-rc.5")
    _, patch_change = plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"])
    assert json.dumps(str(entry)) in (patch_change.new_text or "")


def test_the_bash_service_only_where_dsh_lacks_one(machine: dict[str, Any]) -> None:
    """The Claude Code bridge needs no service; a `dsh-bash` package beside the Codex bridge, or a
    plugin providing `bash` that a layer already mounts, is used instead of ours."""
    assert len(plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"])) == 2
    own = machine["home"] / "plugins" / "bash.mjs"
    own.parent.mkdir()
    own.write_text("export function apply(ctx) { ctx.provide(\"bash\", ctx.shell) }\n")
    layer = machine["dsh"] / "profiles" / "headless" / "cordis.patch.yml"
    layer.parent.mkdir(parents=True)
    layer.write_text(f"- insert:\n    - id: my-bash\n      name: {own}\n")
    _, patch_change = plan_dsh_install(DSH_CODEX, home=machine["home"], env=machine["env"])
    assert "bash-service" not in (patch_change.new_text or "")
    assert any(f"{own}, mounted in a DSH layer, provides it" in m for m in patch_change.messages)
    assert not any("waiting for service" in m for m in patch_change.messages)
    layer.unlink()
    fake_package(machine["codex"].parents[3], "@deepseek-ai/dsh-bash", "0.1.0")
    _, patch_change = plan_dsh_install(DSH_CODEX, home=machine["home"], env=machine["env"])
    assert "bash-service" not in (patch_change.new_text or "")
    assert not any("waiting for service" in m for m in patch_change.messages)


def test_uninstall_removes_the_bash_service_once_no_layer_mounts_the_bridge(machine: dict[str, Any]) -> None:
    install_dsh(machine, DSH_CODEX)
    install_dsh(machine, DSH_CODEX, profile="headless")
    service = machine["dsh"] / "loopguard-hook" / "dsh-bash-service.mjs"
    assert "bash-service" in (machine["dsh"] / "profiles" / "headless" / "cordis.patch.yml").read_text()
    uninstall_dsh(machine, DSH_CODEX, profile="headless")
    assert service.is_file()
    changes = uninstall_dsh(machine, DSH_CODEX)
    assert not service.exists() and changes[-1].path == service and changes[-1].written
    assert not (machine["dsh"] / "cordis.patch.yml").exists()


def test_both_bridges_or_two_layers_are_flagged(machine: dict[str, Any]) -> None:
    install_dsh(machine, DSH_CLAUDE_CODE)
    *_, patch_change = plan_dsh_install(DSH_CODEX, home=machine["home"], env=machine["env"])
    assert any("also mounts loopguard-hook through the DSH Claude Code hook bridge" in m for m in patch_change.messages)
    _, patch_change = plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"], profile="headless")
    assert any(m.startswith(f"warning: {machine['dsh'] / 'cordis.patch.yml'} also mounts") for m in patch_change.messages)


def test_a_hand_written_mount_of_the_bridge_is_flagged(machine: dict[str, Any]) -> None:
    layer = machine["dsh"] / "cordis.patch.yml"
    layer.parent.mkdir(parents=True)
    layer.write_text('- insert:\n    - id: mine\n      name: "/x/dsh-hooks-claude-code/lib/index.js"\n')
    _, patch_change = plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"])
    assert any("also mounts @deepseek-ai/dsh-hooks-claude-code (line 3)" in m for m in patch_change.messages)


@pytest.mark.parametrize("name", ["", "..", "a/b", "node_modules"])
def test_invalid_profile_names_are_refused(machine: dict[str, Any], name: str) -> None:
    with pytest.raises(InstallError, match="invalid DSH profile name"):
        plan_dsh_install(DSH_CLAUDE_CODE, home=machine["home"], env=machine["env"], profile=name)


# -- the command line ---------------------------------------------------------------------------


def run(machine: dict[str, Any], *args: str) -> Any:
    env = {"HOME": str(machine["home"]), "PATH": machine["env"]["PATH"] + os.pathsep + os.environ.get("PATH", ""),
           "TMPDIR": os.environ["TMPDIR"]}  # the suite's helper folder, stopped with the run
    return CliRunner().invoke(cli, list(args), env=env)


def test_cli_install_and_uninstall(machine: dict[str, Any]) -> None:
    result = run(machine, "install", "--client", "dsh-claude-code", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "dry run:" in result.output and not machine["dsh"].exists()
    result = run(machine, "install", "--client", "dsh-claude-code")
    assert result.exit_code == 0 and "mounts the DSH Claude Code hook bridge 0.0.1-rc.5" in result.output
    assert "see it with: cat " in result.output
    result = run(machine, "uninstall", "--client", "dsh-claude-code")
    assert result.exit_code == 0 and "removes the DSH Claude Code hook bridge rows" in result.output


def test_cli_dsh_has_no_project_scope(machine: dict[str, Any]) -> None:
    result = run(machine, "install", "--client", "dsh-codex", "--scope", "project")
    assert result.exit_code == 2 and "DSH has no --scope project/local" in result.output


def test_cli_full_diff_of_a_new_file(machine: dict[str, Any]) -> None:
    result = run(machine, "install", "--client", "dsh-codex", "--dry-run", "--diff")
    assert result.exit_code == 0 and "--- /dev/null" in result.output and "+- insert:" in result.output


def test_uninstall_from_one_layer_keeps_the_config_another_still_uses(machine: dict[str, Any]) -> None:
    install_dsh(machine, DSH_CLAUDE_CODE)
    install_dsh(machine, DSH_CLAUDE_CODE, profile="headless")
    hooks_change, patch_change = uninstall_dsh(machine, DSH_CLAUDE_CODE, profile="headless")
    assert not hooks_change.changed and "still mounts" in hooks_change.messages[0]
    assert hooks_change.path.is_file() and patch_change.written
    hooks_change, _ = uninstall_dsh(machine, DSH_CLAUDE_CODE)
    assert hooks_change.written and not hooks_change.path.exists()


def test_bridge_path_of_the_other_bridge_is_refused(tmp_path: Path) -> None:
    """`--client dsh-codex --bridge-path <the Claude Code bridge>` would mount the wrong bridge
    under the wrong name: refused with one line naming both."""
    from loopguard_hook.install.change import InstallError
    from loopguard_hook.install.dsh_bridge import find_bridge

    lib = tmp_path / "dsh-hooks-claude-code" / "lib"
    lib.mkdir(parents=True)
    (lib / "index.js").write_text("export default {}\n")
    (lib.parent / "package.json").write_text(json.dumps({"name": "@deepseek-ai/dsh-hooks-claude-code", "version": "0.0.1-rc.5"}))
    with pytest.raises(InstallError, match="not @deepseek-ai/dsh-hooks-codex"):
        find_bridge("@deepseek-ai/dsh-hooks-codex", dsh_home_dir=tmp_path, explicit=lib / "index.js")
    assert find_bridge("@deepseek-ai/dsh-hooks-claude-code", dsh_home_dir=tmp_path, explicit=lib.parent) == lib / "index.js"
