"""`install` and `uninstall`: register the hook in a client's settings, or remove it."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from .common import _cwd, _printable

if TYPE_CHECKING:
    from ..install.change import Change

INSTALL_CLIENTS = click.Choice(
    ["claude-code", "codex", "dsh-claude-code", "dsh-codex", "qwen-code", "gemini-cli", "copilot", "cursor", "droid"]
)
#: Hosts with a file of their own (`install/hosts.py`).
OWN_FILE_HOSTS = ("copilot", "cursor", "droid")


@click.command()
@click.option("--client", type=INSTALL_CLIENTS, required=True)
@click.option(
    "--scope",
    type=click.Choice(["user", "project", "local"]),
    default="user",
    show_default=True,
    help="user: ~/.claude, ~/.codex, ~/.qwen, ~/.gemini, ~/.copilot/hooks, ~/.cursor, ~/.factory; "
    "project: the same under ./ (Copilot: ./.github/hooks); local: .claude/settings.local.json.",
)
@click.option("--dry-run", is_flag=True, help="Show the diff, write nothing.")
@click.option("--diff", "full_diff", is_flag=True, help="Show the whole text of a file that is created, too.")
@click.option("--trust", is_flag=True, help="Codex: record the hooks' trusted_hash in config.toml (skips Codex's review).")
@click.option(
    "--bridge-path", default=None, help="DSH: the hook bridge's lib/index.js (default: found beside dsh or in a profile)."
)
@click.option("--dsh-profile", default=None, help="DSH: patch this profile's layer instead of $DSH_HOME/cordis.patch.yml.")
@click.option("--force", is_flag=True, help="Replace a settings file even when it is read-only (its mode is kept).")
def install(
    client: str, scope: str, dry_run: bool, full_diff: bool, trust: bool, bridge_path: str | None, dsh_profile: str | None,
    force: bool,
) -> None:
    """Register loopguard-hook in the client's settings (merged, idempotent, with a backup).

    Exit status: 0 when the settings hold the hook (or would, with --dry-run); 1 with one line
    on stderr when a file cannot be read or changed safely (nothing is written then)."""
    from .. import install as install_mod

    home = os.path.expanduser("~")
    try:
        if client.startswith("dsh-"):
            _dsh_only_user_scope(scope)
            changes = install_mod.plan_dsh_install(
                client, home=home, env=os.environ, bridge_path=bridge_path, profile=dsh_profile
            )
            if trust:
                changes[0].messages.append("note: --trust is for Codex only; DSH has no per-hook trust record")
        elif client in OWN_FILE_HOSTS:
            changes = install_mod.plan_host_install(client, scope, home=home, project_dir=_cwd())
        else:
            changes = install_mod.plan_install(client, scope, home=home, project_dir=_cwd(), env=os.environ, trust=trust)
        changes[0].messages.extend(_dsh_only(client, dsh_profile=dsh_profile, bridge_path=bridge_path))
        if trust and client not in ("codex", "claude-code") and not client.startswith("dsh-"):
            changes[0].messages.append("note: --trust is for Codex only; ignored")  # the others say why
        if not dry_run:
            changes = install_mod.apply(changes, force=force)
    except install_mod.InstallError as exc:
        raise click.ClickException(str(exc)) from None
    if any(c.backup for c in changes):
        changes[-1].messages.append(
            "note: a backup stays beside each file written; `uninstall` removes it when it puts the file back "
            "as it was (otherwise it stays: remove it when you no longer need it)"
        )
    click.echo(install_mod.format_report(changes, dry_run=dry_run, full_diff=full_diff), nl=False)
    _warn_if_not_on_path()
    _warn_if_host_missing(client, dry_run=dry_run)


def _dsh_only_user_scope(scope: str) -> None:
    if scope != "user":
        raise click.UsageError("DSH has no --scope project/local: its layers are per user (--dsh-profile names one profile)")


def _dsh_only(client: str, **options: str | None) -> list[str]:
    """A note for each DSH option given with a host that is not DSH (it changes nothing there)."""
    if client.startswith("dsh-"):
        return []
    return [
        f"note: --{name.replace('_', '-')} is for DSH only (--client dsh-claude-code or dsh-codex); ignored"
        for name, value in options.items() if value is not None
    ]


def _warn_if_not_on_path() -> None:
    """The clients run the command by name: it must be found on their PATH, also from a shell
    where this one's virtualenv is not active (`doctor` warns the same way)."""
    import shutil

    found = shutil.which(install_command())
    if found is None:
        click.echo(
            "warning: `loopguard-hook` is not on PATH, so the client cannot run the hook. Install it where "
            "every shell finds it (`pipx install PATH-TO-CHECKOUT`, or `uv tool install PATH-TO-CHECKOUT`), or put "
            f"{os.path.dirname(sys.argv[0]) or 'the virtualenv bin directory'} on PATH for the client.",
            err=True,
        )
        return
    from ..doctor.common import in_active_virtualenv

    if in_active_virtualenv(found, os.environ):
        click.echo(
            f"warning: `loopguard-hook` is {found}, inside the virtualenv active in this shell: a client started "
            "from another shell will not find it. Install it where every shell finds it (`pipx install "
            "PATH-TO-CHECKOUT`, or `uv tool install PATH-TO-CHECKOUT`), then run `install` from that shell.",
            err=True,
        )


def _warn_if_host_missing(client: str, *, dry_run: bool = False) -> None:
    """Registering for a client whose program is not on PATH is allowed (it may come later), and said
    (under `--dry-run`, as what would be done: nothing was registered)."""
    import shutil

    from ..doctor.model import HOSTS

    program, host = HOSTS[client]
    if shutil.which(program) is None:
        done = (
            "Without --dry-run the hook would be registered, and would run"
            if dry_run
            else "The hook is registered and runs"
        )
        click.echo(
            f"warning: no `{program}` program on PATH: {host} was not found here. {done} once {host} is installed; "
            f"`loopguard-hook doctor --client {client}` says when the guard is live.",
            err=True,
        )


def install_command() -> str:
    from ..install import CANONICAL_COMMAND

    return CANONICAL_COMMAND


def _plan_uninstall(client: str, scope: str, home: str) -> list[Change]:
    """What uninstalling `client`'s hook from `scope` would change (`install.Change`s; nothing is
    written): a host with its own file format, or one of the settings files install merges into.

    Raises:
        install.InstallError: a file cannot be read safely, or the client has no such scope.
    """
    from .. import install as install_mod

    if client in OWN_FILE_HOSTS:
        return install_mod.plan_host_uninstall(client, scope, home=home, project_dir=_cwd())
    return install_mod.plan_uninstall(client, scope, home=home, project_dir=_cwd(), env=os.environ)


def _elsewhere(client: str, scope: str, home: str) -> list[str]:
    """Where install's entries are in another scope's settings, when this one holds none (an
    install made with `--scope local`, an uninstall without it): one note per scope."""
    from .. import install as install_mod

    notes: list[str] = []
    named: set[str] = set()
    for other in ("user", "project", "local"):
        if other == scope:
            continue
        try:
            changes = _plan_uninstall(client, other, home)
        except (install_mod.InstallError, click.UsageError, OSError, ValueError):
            continue  # a scope this client has not, a file or folder it cannot read: said when asked for
        for change in changes:
            same = os.path.realpath(change.path)  # from the home folder (or a link to it) two scopes name one file
            if change.old_text != change.new_text and same not in named:
                named.add(same)
                notes.append(
                    f"note: {_printable(str(change.path))} registers it ({other} scope): "
                    f"`loopguard-hook uninstall --client {client} --scope {other}` removes it"
                )
    return notes


@click.command()
@click.option("--client", type=INSTALL_CLIENTS, required=True)
@click.option("--scope", type=click.Choice(["user", "project", "local"]), default="user", show_default=True)
@click.option("--dry-run", is_flag=True, help="Say what would change, write nothing.")
@click.option("--diff", "full_diff", is_flag=True, help="Show the whole diff of each file, not a summary.")
@click.option("--dsh-profile", default=None, help="DSH: the profile layer install patched (default: $DSH_HOME/cordis.patch.yml).")
@click.option("--force", is_flag=True, help="Replace a settings file even when it is read-only (its mode is kept).")
def uninstall(client: str, scope: str, dry_run: bool, full_diff: bool, dsh_profile: str | None, force: bool) -> None:
    """Remove the entries install wrote from the client's settings, and nothing else (entries
    for loopguard-hook written by hand stay).

    Exit status: 0 when none of install's entries is left (or would be, with --dry-run); 1 with
    one line on stderr when a file cannot be read or changed safely (nothing is written then)."""
    from .. import install as install_mod

    home = os.path.expanduser("~")
    try:
        if client.startswith("dsh-"):
            _dsh_only_user_scope(scope)
            changes = install_mod.plan_dsh_uninstall(client, home=home, env=os.environ, profile=dsh_profile)
        else:
            changes = _plan_uninstall(client, scope, home)
        changes[0].messages.extend(_dsh_only(client, dsh_profile=dsh_profile))
        if not client.startswith("dsh-") and all(c.old_text == c.new_text for c in changes):
            changes[-1].messages.extend(_elsewhere(client, scope, home))
        if not dry_run:
            changes = install_mod.apply(changes, force=force, undo=True)
    except install_mod.InstallError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(install_mod.format_report(changes, dry_run=dry_run, full_diff=full_diff, brief=True), nl=False)
    if any(c.backup for c in changes):  # after the lines that name the backups
        click.echo(
            "note: the file is not as it was before install (it changed since, or install's backup is gone), so "
            "the backup made now (above) stays, and so does install's where it made one (the text before install; "
            "none when install created the file): remove them when you no longer need them"
        )
