"""`config.caveats`: what `status` and `doctor` warn of in a valid config. A cloned repository's
`.loopguard.toml` may turn enforcement down in more ways than `mode`: `profile = "reminder"`,
`deny_at = 0` with `stop_at = 0`. Each is said, naming the file and the keys, with variables that
win over it; a project that only tunes thresholds, or a user who chose the same, is not warned."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopguard_hook.config.caveats import caveats, turned_down, untracked
from loopguard_hook.config.load import Resolved, load


def _load(tmp_path: Path, project: str, *, user: str = "", env: dict[str, str] | None = None) -> Resolved:
    folder = tmp_path / "project"
    folder.mkdir(exist_ok=True)
    (folder / ".loopguard.toml").write_text(project)
    user_path = tmp_path / "user.toml"
    user_path.write_text(user)
    return load(environ={"CLAUDE_PROJECT_DIR": str(folder), **(env or {})}, user_path=str(user_path))


@pytest.mark.parametrize(
    "project, named",
    [
        ('profile = "reminder"\n', 'profile = "reminder"'),
        ("deny_at = 0\nstop_at = 0\n", "deny_at = 0 and stop_at = 0"),
        ('profile = "breaker"\ndeny_at = 0\n', 'profile = "breaker" and deny_at = 0'),
        ('[loopguard]\nprofile = "reminder"\nremind_at = []\n', 'profile = "reminder"'),
    ],
)
def test_a_project_file_that_never_lets_a_loop_be_denied_is_said(tmp_path: Path, project: str, named: str) -> None:
    found = turned_down(_load(tmp_path, project))
    assert found is not None
    what, fix = found
    assert what.startswith(f"the project's file {tmp_path / 'project' / '.loopguard.toml'} turns enforcement down: {named},")
    assert "the repeat rule (a call repeated with no progress) never denies it or ends the turn" in what
    assert "LOOPGUARD_" in fix and "--mode" not in fix


@pytest.mark.parametrize(
    "project",
    [
        "deny_at = 8\nstop_at = 12\n",  # tunes the thresholds: still enforced
        "deny_at = 0\n",  # stop_at 8 still ends the turn
        "stop_at = 0\n",  # deny_at 5 still denies
        'profile = "breaker"\n',
        'profile = "progress"\n',
        'mode = "enforce"\nremind_at = []\n',
        "",
    ],
)
def test_a_project_that_only_tunes_is_not_warned(tmp_path: Path, project: str) -> None:
    assert turned_down(_load(tmp_path, project)) is None


def test_what_the_user_chose_is_not_the_projects_doing(tmp_path: Path) -> None:
    """The user's own file or environment turning the guard down is a choice, not a warning."""
    assert turned_down(_load(tmp_path, "", user='profile = "reminder"\n')) is None
    assert turned_down(_load(tmp_path, "", env={"LOOPGUARD_DENY_AT": "0", "LOOPGUARD_STOP_AT": "0"})) is None
    assert turned_down(_load(tmp_path, "deny_at = 0\n", env={"LOOPGUARD_MODE": "advise"})) is None
    # the project's part is still said when it is what ends enforcement
    found = turned_down(_load(tmp_path, "stop_at = 0\n", user="deny_at = 0\n"))
    assert found is not None and ": stop_at = 0, so" in found[0] and "LOOPGUARD_STOP_AT=8" in found[1]


@pytest.mark.parametrize(
    "project",
    ['profile = "reminder"\n', "deny_at = 0\nstop_at = 0\n", 'profile = "progress"\ndeny_at = 0\n', 'mode = "observe"\n'],
)
def test_the_variables_the_fix_names_end_the_warning(tmp_path: Path, project: str) -> None:
    """Set as the fix says, in the environment the agent starts with, they win over the file."""
    found = turned_down(_load(tmp_path, project))
    assert found is not None
    fix = found[1]
    words = fix.removeprefix("if that is not your choice, set ").split(" in the environment")[0].split(" and ")
    env = dict(word.split("=", 1) for word in words)
    assert env and all(name.startswith("LOOPGUARD_") for name in env), fix
    resolved = _load(tmp_path, project, env=env)
    assert turned_down(resolved) is None and resolved.config.mode == "enforce"
    assert resolved.config.deny_at and resolved.config.stop_at


def test_the_mode_is_said_as_before(tmp_path: Path) -> None:
    found = turned_down(_load(tmp_path, 'mode = "observe"\ndeny_at = 0\nstop_at = 0\n'))
    assert found is not None and ': mode = "observe", so in this project the guard only logs' in found[0]
    assert found[1].startswith("if that is not your choice, set LOOPGUARD_MODE=enforce in the environment")


@pytest.mark.parametrize(
    "exclude, off",
    [('["*"]', True), ('["[A-Za-z]*", "mcp__*"]', False), ('["B*", "R*"]', False), ('["Bash"]', False)],
)
def test_patterns_that_leave_no_tool_tracked(tmp_path: Path, exclude: str, off: bool) -> None:
    """`*` is the only wildcard (`core.tools.matches`): `[A-Za-z]*` names tools that start with
    `[A-Za-z]`, so with it and `mcp__*` excluded `Bash` is still tracked (the hook reminds and
    denies its repeats), and nothing is said; `["*"]` leaves nothing tracked."""
    resolved = _load(tmp_path, f"exclude = {exclude}\n")
    found = untracked(resolved)
    assert (found is not None) == off
    if found is not None:
        assert "leaves no tool tracked" in found[0] and ".loopguard.toml" in found[0]
    assert caveats(resolved) == ([found] if found else [])


@pytest.mark.parametrize(
    "user, env, project",
    [
        ('profile = "reminder"\n', {}, "deny_at = 0\n"),
        ('profile = "reminder"\n', {}, "stop_at = 0\n"),
        ("", {"LOOPGUARD_PROFILE": "reminder"}, "deny_at = 0\n"),
        ('profile = "reminder"\n', {}, 'profile = "reminder"\n'),
        ("deny_at = 0\nstop_at = 0\n", {}, "deny_at = 0\nstop_at = 0\n"),
        ('mode = "advise"\n', {}, 'mode = "advise"\n'),
        ("", {"LOOPGUARD_MODE": "observe"}, 'mode = "advise"\n'),
    ],
)
def test_a_project_that_repeats_what_the_user_chose_is_not_blamed(tmp_path: Path, user: str, env: dict[str, str],
                                                                  project: str) -> None:
    """The user's own file or environment already never denies (`profile = "reminder"`, both
    thresholds 0, a mode below enforce): a project key that leaves it so is not what turned the
    guard down. Before, the project was named, and its fix (`LOOPGUARD_DENY_AT=5`) would have
    undone the user's own choice."""
    assert turned_down(_load(tmp_path, project, user=user, env=env)) is None


@pytest.mark.parametrize(
    "user, project, variables",
    [
        ('profile = "breaker"\n', 'profile = "reminder"\n', {"LOOPGUARD_PROFILE": "breaker"}),
        ("deny_at = 3\nstop_at = 6\n", "deny_at = 0\nstop_at = 0\n", {"LOOPGUARD_DENY_AT": "3", "LOOPGUARD_STOP_AT": "6"}),
        ('mode = "advise"\n', 'mode = "observe"\n', {"LOOPGUARD_MODE": "advise"}),
    ],
)
def test_the_fix_gives_back_the_users_own_values(tmp_path: Path, user: str, project: str, variables: dict[str, str]) -> None:
    """The fix names the values the user's own sources give, not the balanced profile's: with
    `profile = "breaker"` in the user file, `LOOPGUARD_PROFILE=balanced` would have replaced it."""
    found = turned_down(_load(tmp_path, project, user=user))
    assert found is not None
    shown = " and ".join(f"{k}={v}" for k, v in variables.items())
    assert found[1].startswith(f"if that is not your choice, set {shown} in the environment"), found[1]
    assert turned_down(_load(tmp_path, project, user=user, env=variables)) is None
