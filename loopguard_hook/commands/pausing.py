"""`pause` and `resume`: the guard's off switch, for every project or one, for a while or until
resumed (`config/pause.py` has the file and how the hook reads it)."""

from __future__ import annotations

import os
import time

import click

from ..config import load as config_mod
from ..config import pause as pause_mod
from .common import _cwd, _printable
from .times import Span


def pause_file() -> str:
    """The pause file of this user (beside the user config file).

    Raises:
        click.ClickException: there is no home directory to find the user config dir in.
    """
    try:
        return pause_mod.pause_path(config_mod.user_config_path())
    except (KeyError, RuntimeError, OSError):
        raise click.ClickException("no home directory: cannot find the user config dir for the pause file") from None


def read_pauses(path: str) -> list[pause_mod.Pause]:
    try:
        return pause_mod.read(path)
    except config_mod.ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def _write(path: str, pauses: list[pause_mod.Pause]) -> None:
    try:
        pause_mod.write(path, pauses)
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None


def _named(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """`--project` as given, unless empty: `os.path.join(cwd, "")` is the folder here, so a
    variable that was not set (`--project "$DIR"`) would pause or resume this folder instead."""
    if value == "":
        raise click.BadParameter('empty; name the folder ("." for this one)')
    return value


def _project(project: str | None) -> str | None:
    if project is None:
        return None
    return pause_mod.project_paths(os.path.join(_cwd(), project))[0]


@click.command()
@click.option(
    "--project", type=click.Path(file_okay=False), default=None, metavar="DIR", callback=_named,
    help="Pause only this project folder (and folders inside it); default: every project.",
)
@click.option("--for", "span", type=Span(), default=None, help="For how long (30m, 2h, 1d); default: until `resume`.")
def pause(project: str | None, span: float | None) -> None:
    """Turn the guard off from the next hook event: it still decides and logs (mode observe), but
    the model and the host see nothing. For every project, or one with --project; until
    `loopguard-hook resume`, or for a while with --for."""
    path = pause_file()
    now = time.time()
    folder = _project(project)
    if folder is not None and not os.path.isdir(folder):
        # A typo would pause nothing while the real project stays guarded.
        raise click.ClickException(f"--project {_printable(folder)}: no such folder; nothing was paused")
    kept = [p for p in read_pauses(path) if p.active(now) and not _same_project(p, folder)]
    new = pause_mod.Pause(folder, pause_mod.project_paths(folder) if folder else (), now, now + span if span else None)
    _write(path, [*kept, new])
    click.echo(f"loopguard paused: {_printable(new.describe(now))}")
    click.echo("hooks keep running and logging (mode observe); `loopguard-hook resume` turns the guard back on")
    try:
        config_mod.load(environ=os.environ, cwd=folder or _cwd())
    except config_mod.ConfigError:
        # Without the pause every event would fail on it (exit 1 and its line on stderr).
        click.echo("the config has problems (`loopguard-hook config check` lists them): while paused, hook events "
                   "write them to errors.log and answer nothing; fix them before the pause ends")


@click.command()
@click.option(
    "--project", type=click.Path(file_okay=False), default=None, metavar="DIR", callback=_named,
    help="End only the pause of this project folder; default: every pause.",
)
def resume(project: str | None) -> None:
    """End a pause: the guard acts again from the next hook event."""
    path = pause_file()
    now = time.time()
    folder = _project(project)
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
        # a folder or a FIFO where the pause file belongs: the guard did not write it
        raise click.ClickException(f"{_printable(path)} is not a file the guard wrote; remove it yourself: nothing was changed")
    if folder is None and _damaged(path):  # what the hook's error line says to do
        _write(path, [])
        click.echo(f"loopguard resumed (removed the damaged pause file {_printable(path)})")
        return
    pauses = [p for p in read_pauses(path) if p.active(now)]
    if folder is None:
        left: list[pause_mod.Pause] = []
    else:
        left = [p for p in pauses if not _same_project(p, folder)]
    _write(path, left)
    ended = len(pauses) - len(left)
    if not ended:
        click.echo("loopguard was not paused" + (f" for {_printable(folder)}" if folder else ""))
    else:
        click.echo("loopguard resumed" + (f" for {_printable(folder)}" if folder else ""))
    for p in left:
        if p.covers(folder):
            click.echo(f"still paused: {_printable(p.describe(now))} (`loopguard-hook resume` ends every pause)")


def _same_project(pause: pause_mod.Pause, folder: str | None) -> bool:
    """Whether `pause` is the pause of project `folder` (None: every project), named by the same
    path or through a link (one of its paths as given or resolved is one of the folder's)."""
    if pause.project is None or folder is None:
        return pause.project == folder
    return pause.project == folder or bool(set(pause.paths) & set(pause_mod.project_paths(folder)))


def _damaged(path: str) -> bool:
    try:
        pause_mod.read(path)
    except config_mod.ConfigError:
        return True
    return False


def pause_lines(folder: str | None, now: float | None = None) -> list[str]:
    """What `status` and `doctor` say about pauses in force: one line each, the first saying
    whether `folder` (the project here) is covered; [] when none is in force (or no file)."""
    now = time.time() if now is None else now
    try:
        pauses = [p for p in pause_mod.read(pause_file()) if p.active(now)]
    except (config_mod.ConfigError, click.ClickException) as exc:
        return [f"pause file: {exc}"]
    here = [p for p in pauses if p.covers(folder)]
    lines = [f"PAUSED here: {_printable(p.describe(now))}; `loopguard-hook resume` turns the guard back on" for p in here]
    lines += [f"paused: {_printable(p.describe(now))}" for p in pauses if p not in here]
    return lines


def paused_json(folder: str | None, now: float | None = None) -> list[dict[str, object]]:
    """The pauses in force for `status --json`: each with `here` (it covers `folder`)."""
    now = time.time() if now is None else now
    try:
        pauses = [p for p in pause_mod.read(pause_file()) if p.active(now)]
    except (config_mod.ConfigError, click.ClickException):
        return []
    return [{**p.as_json(), "here": p.covers(folder)} for p in pauses]
