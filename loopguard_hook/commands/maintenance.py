"""`reset` and `gc`: forget sessions, by id or by age."""

from __future__ import annotations

import os
import time

import click

from .common import STATE_DIR_HELP, _echo_problems, _id_starts, _locations, _printable, _readable, _shown_id, _stem
from .times import Age


@click.command()
@click.argument("session_arg", metavar="[SESSION]", required=False, default=None)
@click.option("--session", "session_id", default=None, help="Forget this session (the same as SESSION).")
@click.option("--all", "all_sessions", is_flag=True, help="Forget every session.")
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
def reset(session_arg: str | None, session_id: str | None, all_sessions: bool, state_dir: str | None) -> None:
    """Forget state: the escape hatch when the guard is wrong about a session. SESSION (or
    --session) is the whole session id `status` lists."""
    if session_arg is not None and session_id is not None and session_arg != session_id:
        raise click.UsageError("give the session once: SESSION or --session ID")
    session_id = session_id if session_id is not None else session_arg
    if (session_id is None) == (not all_sessions):
        raise click.UsageError("give exactly one of SESSION (or --session ID) or --all")
    found = _locations(state_dir)
    _echo_problems(found)
    stores = _readable(found)
    if all_sessions:
        for store in stores:
            stems = [stem for stem, _, _ in store.list_sessions() if store.remove(stem)]
            click.echo(f"reset {len(stems)} session(s) in {store.sessions}")
        return
    assert session_id is not None
    stem = _stem(session_id)
    names = [os.path.join(store.sessions, stem + suffix) for store in stores for suffix in (".json", ".tmp", ".lock")]
    planted = [name for name in names if os.path.lexists(name)]  # before: a lock planted there is replaced
    removed = [store for store in stores if store.remove(stem, recover=True, only_ours=False)]
    left = [name for name in planted if os.path.lexists(name)]
    if removed or (planted and not left):
        where = f" in {_printable(removed[0].sessions)}" if len(removed) == 1 and len(stores) > 1 else ""
        click.echo(f"reset session {_shown_id(session_id)}{where}")
    if left:  # a folder where a state file belongs: not the guard's to delete
        click.echo(f"session {_shown_id(session_id)}: {_printable(left[0])} is not a file the guard wrote; left as it "
                   "is (the session's next event moves it aside)")
    elif not removed and not planted:  # as `status --session`: a mistyped id must not look like a reset done
        where = " or ".join(s.sessions for s in stores) or found[0].root
        started = any(_id_starts(state, session_id) for store in stores for _, state, _ in store.list_sessions())
        whole = " (reset wants the whole id: `loopguard-hook status` lists it)" if started else ""
        raise click.ClickException(f"no state for session {_shown_id(session_id)} in {_printable(where)}{whole}")


@click.command()
@click.option(
    "--older-than", type=Age(), default="7d", show_default=True,
    help="Idle time with its unit (s, m, h, d, w), e.g. 12h, 7d.",
)
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
@click.option("--dry-run", is_flag=True, help="List what would be deleted.")
def gc(older_than: float, state_dir: str | None, dry_run: bool) -> None:
    """Delete the state of sessions idle longer than --older-than."""
    seconds = older_than
    found = _locations(state_dir)
    _echo_problems(found)
    for store in _readable(found):
        if dry_run:
            old = store.gc(seconds, time.time(), dry_run=True)
            click.echo(f"would delete {len(old)} session(s)" + (f" from {store.sessions}" if len(found) > 1 else ""))
            for stem in old:
                click.echo(f"  {stem}")
            continue
        removed = store.gc(seconds, time.time())
        click.echo(f"deleted {len(removed)} idle session(s) from {store.sessions}")
