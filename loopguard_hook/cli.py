"""The command line (click). With `cli_commands/`, the only place that imports click.

`loopguard-hook` with no command runs the hook (see `hook.py`); the operator commands are
`status`, `stats`, `log`, `reset`, `gc`, `replay`, `sweep`, `install`, `uninstall`, `doctor`,
`config show|check`, `pause`, `resume` and `helper status|stop`.

Usage errors exit 1, not click's usual 2: the same executable is registered as a hook, and both
clients read exit 2 as "block the call".
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

import click

from . import __version__
from .commands import config as config_cmds
from .commands import helper as helper_cmd
from .commands import log as log_cmd
from .commands import maintenance, pausing, registration, status
from .commands.common import (
    CLIENT_CHOICE,
    CONFIG_HELP,
    HOOK_CLIENT_CHOICE,
    MODE_CHOICE,
    MODE_HELP,
    PROFILE_CHOICE,
    STATE_DIR_HELP,
    _cwd,
    _echo_json,
    _printable,
    _resolved,
    _root_param,
    sources_read,
)
from .config import load as config_mod
from .store import StateError


def _hook_options(func: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--client",
                type=HOOK_CLIENT_CHOICE,
                default="auto",
                show_default=True,
                help="Which client's protocol to speak; auto: recognised from the payload.",
            ),
            click.option("--profile", type=PROFILE_CHOICE, default=None, help="Detection profile (default: balanced)."),
            click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help=CONFIG_HELP),
            click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP),
            click.option("--mode", type=MODE_CHOICE, default=None, help=MODE_HELP),
            click.option("--dry-run", is_flag=True, help="Decide but write no state."),
            click.option(
                "--event", default=None, metavar="NAME",
                help="The hook event, for a host whose payloads do not name it (Copilot's own hook files).",
            ),
        ]
    ):
        func = option(func)
    return func


def _run_hook_command(
    client: str, profile: str | None, config_path: str | None, state_dir: str | None, mode: str | None, dry_run: bool,
    event: str | None,
) -> int:
    from .process import run_hook

    values: dict[str, object] = {"client": client, "dry_run": dry_run}
    for key, value in (("profile", profile), ("config", config_path), ("state_dir", state_dir), ("mode", mode), ("event", event)):
        if value is not None:
            values[key] = value
    return run_hook(values)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@_hook_options
@click.version_option(__version__, prog_name="loopguard-hook")
@click.pass_context
def cli(ctx: click.Context, /, **options: Any) -> None:
    """Guard coding agents against repeat-call loops: Claude Code, Codex, the DeepSeek Harness,
    Qwen Code, Gemini CLI, Cursor, Copilot CLI and Factory Droid.

    With no command, run the hook: read one hook payload (JSON) on stdin and print the decision
    on stdout (nothing, a reminder, a denial, or an order to end the turn). Exit status is 0, or
    1 with one line on stderr; never 2. On Copilot CLI, Cursor, Gemini CLI and Droid (a failing
    hook there denies the call or shows its stderr to the model) it is 0 on every path, and a
    failure goes to errors.log in the state dir instead.
    """
    if ctx.invoked_subcommand is None:
        ctx.exit(_run_hook_command(**options))


@cli.command("hook")
@_hook_options
@click.pass_context
def hook_command(ctx: click.Context, /, **options: Any) -> None:
    """Run the hook on the payload read from stdin (the same as no command)."""
    ctx.exit(_run_hook_command(**options))




# -- replay -----------------------------------------------------------------------------------


def _recording_options(func: Any) -> Any:
    """The options `replay` and `sweep` share: a config file, the mode, the recording's client."""
    func = click.option(
        "--client", type=CLIENT_CHOICE, default="auto", show_default=True,
        help="Which host recorded FILES; auto: told by the file's format (a transcript or rollout must be that "
        "host's; a payload log is read as that host's payloads).",
    )(func)
    func = click.option("--mode", type=MODE_CHOICE, default=None, help=MODE_HELP)(func)
    return click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help=CONFIG_HELP)(func)


class _ReplayFormat(click.Choice):  # type: ignore[type-arg]
    """`text` or `json`; `html` is pointed at `--html FILE`, which writes the page."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.lower() == "html":
            self.fail("the page is written with --html FILE (one self-contained HTML file), not --format", param, ctx)
        return super().convert(value, param, ctx)


@click.command("replay")
# Not checked here (exists, not a folder): a bad file is one stderr line and the rest replay.
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option(
    "--format", "fmt", type=_ReplayFormat(["text", "json"]), default="text", show_default=True,
    help="text: a row per call and a summary; json: the same for pipelines (the page: --html FILE).",
)
@click.option("--profile", type=PROFILE_CHOICE, default=None, help="Profile to replay with (default: balanced).")
@_recording_options
@click.option("--summary", is_flag=True, help="One line per session (its counts), no row per call.")
@click.option(
    "--only-decisions", is_flag=True,
    help="List only the calls the guard would have acted on (remind, deny, stop, or saved); "
    "the counts still cover every call. Not with --summary, which lists no call.",
)
@click.option(
    "--color/--no-color", default=None,
    help="Colour the text output (default: when stdout is a terminal and NO_COLOR is not set).",
)
@click.option(
    "--html", "html_path", type=click.Path(dir_okay=False, writable=True), default=None, metavar="FILE",
    help="Write a picture instead: one self-contained HTML page with a timeline of each session's "
    "calls (loops as bands, interventions marked) and its token use over time.",
)
@click.pass_context
def replay_command(
    ctx: click.Context, files: tuple[str, ...], fmt: str, profile: str | None, config_path: str | None,
    mode: str | None, client: str, summary: bool, only_decisions: bool, color: bool | None, html_path: str | None,
) -> None:
    """Run the guard over recorded sessions and show what it would have done at each call.

    FILES are Claude Code transcripts (~/.claude/projects/**/*.jsonl), Codex rollouts
    (~/.codex/sessions/**/rollout-*.jsonl), DSH session logs (session.jsonl.zstd) or logs of
    hook payloads (one JSON per line, of any host: told from the payloads themselves); a
    folder stands for the *.jsonl and *.jsonl.zstd files under it. The
    same engine runs in a scratch state: nothing is written. A long replay shows its progress
    on stderr when that is a terminal.

    A file that cannot be replayed (empty, only a session summary, another format) is named on
    stderr, one line each for the first five, then one line counts the rest; the others are
    reported. Exit status: 0 when at least one
    session was replayed, 1 when none was, 130 when interrupted (Ctrl-C).
    """
    import shutil

    from . import replay as replay_mod

    if html_path is not None and (summary or only_decisions or fmt != "text"):
        raise click.UsageError("--html writes the page instead of the text: leave out --summary, --only-decisions and --format")
    if summary and only_decisions:
        # Said rather than ignored: the counts of --summary are of every call either way.
        raise click.UsageError("--summary lists no call, so --only-decisions has nothing to leave out: give one of them")
    if html_path is not None and _a_recording(html_path, files):
        # `--html A.jsonl B.jsonl` takes A for the page: the recording would be replaced.
        raise click.UsageError(f"--html {html_path} would write the page over a recording: name the page FILE.html")
    unreadable: list[str] = []
    files = _in_folders(files, unreadable)
    resolved = _resolved(profile, config_path, mode)
    cfg = resolved.config
    read = sources_read(resolved)
    if read and read != "command line":
        # The files of the folder replay runs in and the user's, not the recording's: said once.
        click.echo(f"replay: settings from {_printable(read)} (`config show` lists them)", err=True)
    recordings = replay_mod.load(files, unreadable=unreadable)
    skipped = _Skipped()
    skipped.say(unreadable)
    said = len(unreadable)
    if color is None:
        color = fmt == "text" and _is_terminal(sys.stdout) and not os.environ.get("NO_COLOR")
    # Not a terminal (a pipe, a file): wide rows, so arguments are not cut at 80 columns.
    width = shutil.get_terminal_size(fallback=(160, 24)).columns
    progress = _ReplayProgress() if _is_terminal(sys.stderr) else None
    calls: replay_mod.Calls = "all" if html_path else "none" if summary else "acted" if only_decisions else "all"
    each = replay_mod.replay_each(recordings, cfg, client=client, calls=calls, progress=progress, unreadable=unreadable)
    streamed = fmt == "text" and not summary and html_path is None
    try:
        # Text: each session as soon as it is replayed (`replay … | head` need not wait for all).
        reports = [] if streamed else list(each)
        replayed = _echo_each(each, width, color, progress) if streamed else len(reports)
    finally:
        if progress is not None:
            progress.close()
    skipped.say(unreadable[said:])
    skipped.close()
    if not replayed and unreadable:
        ctx.exit(1)
    if html_path is not None:
        _write_html(html_path, reports)
    elif not streamed or not replayed:
        text = replay_mod.render(reports, fmt, width=width, summary=summary, color=color, unreadable=unreadable)
        click.echo(text, color=color)


def _echo_each(reports: Any, width: int, color: bool, progress: _ReplayProgress | None) -> int:
    """Print each of `reports` as it comes (`replay.each_text`: together, the bytes
    `replay.render` gives all at once), a progress bar on the same terminal taken off its line
    first; how many there were."""
    from .replay import each_text

    printed = 0
    for part in each_text(reports, width=width, color=color):
        if progress is not None and _is_terminal(sys.stdout):
            progress.clear()
        click.echo(part, color=color)
        printed += 1
    return printed


#: The files a folder given to `replay` holds sessions in: transcripts and rollouts, DSH logs.
_SESSION_SUFFIXES = (".jsonl", ".jsonl.zstd")


def _in_folders(paths: tuple[str, ...], unreadable: list[str]) -> tuple[str, ...]:
    """`paths` with each folder replaced by the session files under it, sorted
    (`~/.claude/projects/<dir>/`, `~/.codex/sessions/2026/`); a Claude Code `subagents/` folder is
    left to its main transcript, which reads it. A folder holding none is left out, with a
    message in `unreadable`, and so is each folder under it that cannot be read."""
    out: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            out.append(path)
            continue
        failed: list[OSError] = []  # os.walk passes over a folder it cannot list, unless told
        under = [(os.path.basename(root) == "subagents", os.path.join(root, name))
                 for root, _, names in os.walk(path, onerror=failed.append)
                 for name in names if name.endswith(_SESSION_SUFFIXES)]
        unreadable.extend(f"{exc.filename}: {exc.strerror or exc}" for exc in failed)
        found = sorted(name for subagent, name in under if not subagent)
        if not found and not failed:
            why = ("only subagent transcripts under it: name their main transcript, which reads them" if under
                   else "a folder with no session file (*.jsonl, *.jsonl.zstd) under it")
            unreadable.append(f"{path}: {why}")
        out.extend(found)
    return tuple(out)


def _a_recording(path: str, files: tuple[str, ...]) -> bool:
    """Whether `path` is one of `files`, or named as a recording is (`.jsonl`, `.json`, `.zstd`)."""
    if path.lower().endswith((".jsonl", ".json", ".zstd", ".zst")):
        return True
    for name in files:
        try:
            if os.path.samefile(path, name):
                return True
        except OSError:
            continue
    return False


#: How many files `replay` and `sweep` name on stderr as skipped: the rest are counted in one
#: line (a folder of thousands of files that are not recordings would print thousands).
SKIPPED_NAMED = 5


class _Skipped:
    """The stderr lines of the files `replay` or `sweep` could not use: one each for the first
    `SKIPPED_NAMED`, as they are found (`say`), then one line of how many more (`close`)."""

    def __init__(self) -> None:
        self.named = self.more = 0

    def say(self, messages: list[str]) -> None:
        """Name each of `messages` (each names its file) while there is room, count the others."""
        for message in messages:
            if self.named < SKIPPED_NAMED:
                click.echo(f"loopguard-hook: skipped {message}", err=True)
                self.named += 1
            else:
                self.more += 1

    def close(self) -> None:
        """Say how many files were skipped and not named, if any."""
        if self.more:
            click.echo(f"loopguard-hook: skipped {self.more} more {'file' if self.more == 1 else 'files'}", err=True)


def _write_html(path: str, reports: list[Any]) -> None:
    """Write the page of `reports` to `path` (replaced whole) and say what it holds."""
    from .replay.render_html import format_html

    page = format_html(reports).encode("utf-8")
    if _holds_other_text(path):
        # a link to a recording replay read itself (a subagent transcript), or any file of the user's
        raise click.ClickException(f"{path} holds something other than a page: replay writes a new page or replaces its own")
    try:
        # Opened non-blocking: a FIFO nobody reads is refused (ENXIO) instead of waited on
        # forever; then blocking again, so a pipe that is read (/dev/stdout) takes the whole page.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
        os.set_blocking(fd, True)
        with open(fd, "wb") as fh:
            fh.write(page)
            page_is_stdout = _same_file(fh.fileno(), sys.stdout)
    except OSError as exc:
        reason = "a FIFO nobody reads" if exc.errno == errno.ENXIO else exc.strerror or exc
        raise click.ClickException(f"cannot write {path}: {reason}") from None
    calls = sum(r.summary.calls for r in reports)
    acted = sum(r.summary.reminders + r.summary.denials + r.summary.stops for r in reports)
    # The page went to stdout (`--html /dev/stdout | …`): the line goes to stderr, after it.
    click.echo(f"wrote {path}: {len(reports)} session(s), {calls} calls, {acted} intervention{'' if acted == 1 else 's'}, "
               f"{sum(len(r.loops) for r in reports)} loop(s)", err=page_is_stdout)


def _holds_other_text(path: str) -> bool:
    """Whether `path` is a regular file, not empty, that does not start as `replay --html` pages
    do (`<!DOCTYPE html`): a pipe, a terminal, a new or empty file, or a page are written."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return False
    return bool(head) and not head.lstrip().lower().startswith(b"<!doctype html")


def _same_file(fd: int, stream: Any) -> bool:
    """Whether descriptor `fd` and `stream` are one file (one pipe, one terminal, one path)."""
    try:
        a, b = os.fstat(fd), os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


@click.command("sweep")
@click.argument("files", nargs=-1, type=click.Path())  # a bad file is one line, as in replay
@click.option(
    "--set", "sets", multiple=True, required=True, metavar="KEY=V1,V2,...",
    help="A setting to sweep and its values (keys as `config show` names them; values as JSON where "
    "they are, e.g. 4, true, [3,4], else text). Repeat for more keys: every combination is replayed.",
)
@click.option(
    "--labels", "labels_path", type=click.Path(exists=True, dir_okay=False), default=None,
    help="A labels file naming the loops in the recordings (tests/corpus/README.md); adds loops "
    "caught and false alarms. Without FILES: every file it labels.",
)
@click.option("--profile", type=PROFILE_CHOICE, default=None, help="Profile under the swept settings (default: balanced).")
@_recording_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--color/--no-color", default=None, help="Colour the table (default: on a terminal, unless NO_COLOR).")
@click.pass_context
def sweep_command(
    ctx: click.Context, files: tuple[str, ...], sets: tuple[str, ...], labels_path: str | None, profile: str | None,
    config_path: str | None, mode: str | None, client: str, fmt: str, color: bool | None,
) -> None:
    """Replay recorded sessions under a grid of settings: one row per setting.

    Each row totals, over all sessions: interventions (reminders, denials and stops: decisions
    whose wire action is remind, deny or stop) and calls saved. A call is saved when the
    recording ran it but the guard would not have let it run: it would have denied it at
    PreToolUse, or (Claude Code) the call came later in a turn the guard had ended with a stop.
    Those are the calls after the first intervention of a loop that the guard would have
    prevented; an estimate, since a replay follows the recording and cannot know what the model
    would have done instead. With --labels: loops caught (an intervention inside the loop) and
    stopped (a denial or stop inside it), and false alarms and false denials (interventions outside
    every labelled loop), over the labelled sessions. FILES are what `replay` reads; a folder
    stands for the *.jsonl and *.jsonl.zstd files under it.

    A file that cannot be read (empty, only a session summary, another format) is named on
    stderr, one line each, and left out of every row. Exit status: 0 when at least one session
    was replayed, 1 when none was.

    \b
    Example:
      loopguard-hook sweep ~/.claude/projects/*/*.jsonl --set deny_at=4,5,6 --set 'remind_at=[3],[3,4]'
    """
    from . import replay as replay_mod
    from .replay import labels as labels_mod
    from .replay import sweep as sweep_mod

    try:
        labels = labels_mod.read_labels(labels_path) if labels_path is not None else None
        points = sweep_mod.grid([sweep_mod.parse_set(text) for text in sets])
    except (ValueError, replay_mod.ReplayError) as exc:
        raise click.ClickException(str(exc)) from None
    paths = list(files) or (labels.files() if labels is not None else [])
    if not paths:
        raise click.UsageError("give FILES to replay, or --labels to replay every file it labels")
    settings = [(point, _resolved_with(point, profile, config_path, mode)) for point in points]
    unreadable: list[str] = []
    paths = list(_in_folders(tuple(paths), unreadable))
    recordings = replay_mod.load(paths, unreadable=unreadable)
    skipped = _Skipped()
    skipped.say(unreadable)
    skipped.close()
    if not recordings:
        ctx.exit(1)
    progress = _ReplayProgress() if _is_terminal(sys.stderr) else None
    try:
        rows = sweep_mod.sweep(recordings, settings, client=client, labels=labels, progress=progress)
    except replay_mod.ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if progress is not None:
            progress.close()
    if fmt == "json":
        _echo_json(sweep_mod.sweep_json(rows, labels=labels))
        return
    if color is None:
        color = _is_terminal(sys.stdout) and not os.environ.get("NO_COLOR")
    click.echo(sweep_mod.format_sweep(rows, labels=labels, color=color), color=color)


def _resolved_with(point: dict[str, Any], profile: str | None, config_path: str | None, mode: str | None) -> Any:
    """The config of one setting of a sweep: the usual sources, then the swept values."""
    flags = {"profile": profile or _root_param("profile"), "mode": mode or _root_param("mode"), **point}
    try:
        return config_mod.load(
            environ=os.environ, cwd=_cwd(), config_path=config_path or _root_param("config_path"), flags=flags
        ).config
    except config_mod.ConfigError as exc:
        raise click.ClickException(f"bad setting: {exc}") from None


#: Replays of fewer events than this finish too soon for a progress bar to help.
PROGRESS_MIN_EVENTS = 5000


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty()) and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # a stream without isatty, or closed
        return False


class _ReplayProgress:
    """A progress bar on stderr, drawn once a replay is known to have `PROGRESS_MIN_EVENTS` events
    or more; called as `progress(done, total)` by `replay.replay_files`."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < PROGRESS_MIN_EVENTS:
                return
            self.bar = click.progressbar(length=total, label="replaying hook events", file=sys.stderr, show_pos=True)
            self.bar.__enter__()
        self.bar.update(done - self.bar.pos)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def clear(self) -> None:
        """Take the bar off the terminal, for what is printed next to take its line; the next
        `progress(done, total)` draws it anew, under that."""
        if self.bar is not None:
            sys.stderr.write("\r\x1b[K\x1b[?25h")  # the line erased, the cursor shown again
            sys.stderr.flush()
            self.bar = None


# -- doctor -----------------------------------------------------------------------------------


@click.command()
@click.option(
    "--client", "clients", multiple=True,
    type=click.Choice(
        ["claude-code", "codex", "dsh", "dsh-claude-code", "dsh-codex", "qwen-code", "gemini-cli", "copilot", "cursor", "droid"]
    ),
    help="Check only this client (repeatable; dsh: both bridges; default: every client).",
)
@click.option("--json", "as_json", is_flag=True, help="JSON: each client's findings.")
@click.option("--no-run", is_flag=True, help="Do not send the synthetic event through the registered command.")
@click.pass_context
def doctor(ctx: click.Context, clients: tuple[str, ...], as_json: bool, no_run: bool) -> None:
    """Is the guard live? For each client: registered, on PATH, trusted, matchers, state dir, one test event.

    Each client ends in one of: live; NOT live (a check failed); not installed (the client is
    here, the guard is not registered); registered, but the client was not found here (its
    program is not on PATH); not found. Exits 1 when the guard is registered for a client here
    but not live, or, with --client, when a client named is not live, or when the config here
    does not load (said in a line of its own where no client's checks said it)."""
    from . import doctor as doctor_mod

    reports = doctor_mod.run_doctor(
        home=os.path.expanduser("~"), cwd=_cwd(), env=os.environ, clients=clients or doctor_mod.CLIENTS, run=not no_run
    )
    click.echo((doctor_mod.render_json if as_json else doctor_mod.render_text)(reports), nl=False)
    bad = None
    if not any(f.check == "config" for r in reports for f in r.findings):
        # No host here checked the config (none registered or found): a bad one is said all the same.
        try:
            config_mod.load(environ=os.environ, cwd=_cwd())
        except config_mod.ConfigError as exc:
            bad = exc
    if not as_json:
        if bad is not None:
            click.echo(f"config here: BAD, every hook event from here would fail and the guard be off: {_printable(str(bad))}")
            click.echo(f"  fix: {_printable(bad.fix)}")
        for line in pausing.pause_lines(os.environ.get("CLAUDE_PROJECT_DIR") or _cwd()):
            click.echo(line)
    ctx.exit(1 if bad is not None else doctor_mod.exit_code(reports, named=bool(clients)))


# The commands, in the order `--help` has always listed them.
for _command in (
    status.stats_command, status.status, log_cmd.log_command, maintenance.reset, maintenance.gc, replay_command, sweep_command,
    registration.install, registration.uninstall, doctor, config_cmds.config_group, pausing.pause, pausing.resume,
    helper_cmd.helper_group,
):
    cli.add_command(_command)



# -- entry ------------------------------------------------------------------------------------


#: Why writing the output failed (`>/dev/full`, a closed pipe, a broken terminal).
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG})


#: Options whose empty value would quietly mean their default (the user's state dir or config).
_PATH_OPTIONS = ("--state-dir", "--config")


def _empty_path_option(args: list[str]) -> str | None:
    """The first of `_PATH_OPTIONS` given an empty value (`--state-dir=`, `--config ""`), if any."""
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name in _PATH_OPTIONS and ((eq and not value) or (not eq and i + 1 < len(args) and args[i + 1] == "")):
            return name
    return None


def run_cli(args: list[str]) -> int:
    """Run click without letting it exit 2 (usage errors exit 1)."""
    empty = _empty_path_option(args)
    if empty is not None:
        click.echo(f"loopguard-hook: {empty} was given an empty path; name a path, or leave the option out", err=True)
        return 1
    try:
        result = cli.main(args=args, prog_name="loopguard-hook", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return 1 if exc.exit_code == 2 else exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:  # a group named without its command
        click.echo(exc.format_message(), err=True)
        return 1
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "loopguard-hook"
        # One line: click lists a missing option's choices one per line ("Choose from:\n\tcodex,").
        message = " ".join(line.strip() for line in exc.format_message().splitlines())
        click.echo(f"loopguard-hook: {message} (see {where} --help)", err=True)
        return 1
    except click.ClickException as exc:
        click.echo(f"loopguard-hook: {exc.format_message()}", err=True)
        return 1
    except click.exceptions.Abort:
        click.echo("loopguard-hook: aborted", err=True)
        return 1
    except StateError as exc:
        click.echo(f"loopguard-hook: state: {exc}", err=True)
        return 1
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            raise
        from .process import unwritable_stdout

        click.echo(unwritable_stdout(exc), err=True)
        return 1
    if isinstance(result, int) and result != 2:
        return result
    return 0 if result is None else 1
