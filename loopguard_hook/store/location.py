"""Where an event's state lives: the state directory chosen for it, and why.

In order:

1. `--state-dir`, then `LOOPGUARD_STATE_DIR`: always, as given.
2. An event of a client whose capability table says `workspace_state` (both DeepSeek Harness
   hook bridges): `<workspace>/.loopguard-hook/`, in the session workspace. DSH (0.1.0-rc.8)
   confines every hook like its model's `bash` tool: under Landlock only the workspace and the
   shared /tmp are writable, under bubblewrap only the workspace (/tmp is a fresh tmpfs per
   hook call), and `~/.cache` fails with EACCES or EROFS under both (research/dsh-hooks.md §8;
   `tests/test_dsh_sandbox.py` runs the real launchers). DSH strips every `DSH_*` variable from
   a hook's environment, so the mode cannot be read: the workspace is used whatever the mode,
   and the state of one project stays in one place.
3. Otherwise the user cache dir (`state.default_state_dir`). When it cannot be created or
   written (EACCES, EROFS, EPERM: a sandboxed hook, a read-only home) the event falls back to
   the workspace folder too.

The workspace is never taken from the payload alone (`workspace_home`): it is the directory the
host started the hook in (the process's working directory: DSH starts its hooks in the session
workspace, research/dsh-hooks.md §8), and only when the payload's `cwd` is that same directory,
that directory belongs to this user and is not a shared temp folder, and it is neither `/`, nor a
folder right under it, nor a system folder (`/usr`, `/etc`, `/proc`…). Anything else: the user
cache dir, and when that cannot be written either, the hook says so in one line and stays off.

The workspace folder is made by the guard with mode 0700 and a `.gitignore` of `*` (as the
pytest, mypy and ruff caches do). It is never followed through a symlink, must belong to this
user and be private to them, and its mode is never changed: a symlink, a file or another user's
folder planted at `.loopguard-hook` is refused with one line (the hook then exits 1, and
nothing is written outside the workspace).
"""

import errno
import os
import stat
from collections.abc import Mapping

from . import StateError, default_state_dir

#: The state folder in a session workspace.
WORKSPACE_DIR = ".loopguard-hook"
#: What the guard writes into a workspace folder it creates, so that it is never committed.
GITIGNORE = b"# Created by loopguard-hook: session state, never to be committed.\n*\n"
#: Why writing the default state directory fails inside a sandbox.
UNWRITABLE = frozenset({errno.EACCES, errno.EROFS, errno.EPERM})
#: Every DSH session log ends so (both bridges; research/dsh-hooks.md §3 and §7).

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class Location:
    """A state directory and why it was chosen.

    `kind`: "option" (`--state-dir`), "environment" (`LOOPGUARD_STATE_DIR`), "default" (the
    user cache dir) or "workspace" (`<cwd>/.loopguard-hook`). `fallback` is the workspace
    folder to use when a "default" location turns out not to be writable ("" when there is
    no workspace to fall back to), and `refused` then says why there is none. `problem`
    (operator commands): "" when the folder can be read, else why it is not. A plain class: a
    NamedTuple costs a tenth of a millisecond of every hook start.
    """

    __slots__ = ("root", "kind", "reason", "fallback", "problem", "refused")

    def __init__(self, root: str, kind: str, reason: str, fallback: str = "", problem: str = "", *,
                 refused: str = "") -> None:
        self.root = root
        self.kind = kind
        self.reason = reason
        self.fallback = fallback
        self.problem = problem
        self.refused = refused

    def __repr__(self) -> str:
        return f"Location({self.root!r}, {self.kind!r}, {self.reason!r}, {self.fallback!r}, {self.problem!r})"


#: Folders whose whole tree belongs to the system: no workspace state folder in them, whoever
#: runs the hook (root owns them all).
SYSTEM_TREES = ("/proc", "/sys", "/dev", "/usr", "/etc", "/boot", "/run", "/bin", "/sbin", "/lib", "/lib32",
                "/lib64", "/libx32", "/snap", "/var/lib", "/var/run", "/var/log", "/var/cache", "/var/spool")


def workspace_dir(cwd: str | None) -> str:
    """`<cwd>/.loopguard-hook`, or "" when `cwd` is not an absolute path."""
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or "\0" in cwd:
        return ""
    return os.path.join(cwd, WORKSPACE_DIR)


def workspace_home(cwd: str | None) -> tuple[str, str]:
    """`(<dir>/.loopguard-hook, "")` for the directory the hook was started in (this process's
    working directory) when a workspace state folder may be made there, else `("", why not)`.

    `cwd` is the payload's: it must name that same directory (compared by device and inode),
    so a payload alone never chooses where a folder is made. The directory must belong to this
    user, not be a shared temp folder (`/var/tmp`), and be neither `/`, nor a folder right under it (`/home`,
    `/tmp`), nor in a system tree (`SYSTEM_TREES`). Reads two inodes; never raises.
    """
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or "\0" in cwd:
        return "", "the payload names no absolute cwd"
    try:
        here = os.getcwd()
        started, named = os.stat(here), os.stat(cwd)
    except (OSError, ValueError):
        return "", "the hook's working directory or the payload's cwd cannot be read"
    if (started.st_dev, started.st_ino) != (named.st_dev, named.st_ino):
        return "", "the payload's cwd is not the directory the hook was started in"
    if os.path.dirname(here) == os.path.dirname(os.path.dirname(here)):  # `/` or `/x`
        return "", f"{here} is / or a folder right under it"
    if any(here == tree or here.startswith(tree + "/") for tree in SYSTEM_TREES):
        return "", f"{here} is a system folder"
    if started.st_uid != os.getuid():
        return "", f"{here} belongs to uid {started.st_uid}, not to this user"
    if started.st_mode & 0o1002 == 0o1002:
        return "", f"{here} is a shared temp folder (writable by every user, sticky)"
    return os.path.join(here, WORKSPACE_DIR), ""


def choose(state_dir: str | None, environ: Mapping[str, str], cwd: str | None, *, dsh: bool) -> Location:
    """The state location of an event (see the module docstring). `cwd` is the payload's; the
    workspace, if any, is the hook's own working directory (`workspace_home`). Makes nothing.

    Raises:
        StateError: no option or variable is set, the event is not DSH's (or its workspace
            cannot be used), and no home directory can be found for the cache dir.
    """
    if state_dir:
        return Location(state_dir, "option", "--state-dir")
    configured = environ.get("LOOPGUARD_STATE_DIR")
    if configured:
        return Location(configured, "environment", "LOOPGUARD_STATE_DIR")
    workspace, refused = workspace_home(cwd)
    if dsh and workspace:
        return Location(
            workspace, "workspace", "sent by a DSH hook bridge, whose sandbox lets hooks write only the workspace"
        )
    reason = "the user cache dir" + (f" (no workspace folder: {refused})" if dsh and refused else "")
    return Location(default_state_dir(environ), "default", reason, workspace, refused=refused)


def workspace_location(fallback: str) -> Location:
    """The workspace location an unwritable default falls back to."""
    return Location(fallback, "workspace", "the user cache dir cannot be written here (a sandboxed hook?)")


def unwritable(root: str, failure: str) -> bool:
    """Whether `root` cannot be created or written for a sandbox's or a read-only file
    system's reason (EACCES, EROFS, EPERM). Called only after the state store failed there
    with `failure` (its message): when that names one of those reasons, it is confirmed by
    making and removing a folder in `root`, or in its nearest existing parent (`access(2)` does
    not see a Landlock sandbox)."""
    if not any(os.strerror(code) in failure for code in UNWRITABLE):
        return False
    path = os.path.abspath(root)
    while not os.path.isdir(path):
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    probe = os.path.join(path, f".loopguard-probe-{os.getpid()}")
    try:
        os.mkdir(probe, 0o700)
    except FileExistsError:
        return False
    except OSError as exc:
        return exc.errno in UNWRITABLE
    try:
        os.rmdir(probe)
    except OSError:
        pass
    return False


def ensure_workspace(path: str) -> str:
    """Create the workspace state folder `path` if missing (0700, with its `.gitignore`), check
    it, and return it.

    Raises:
        StateError: `path` is a symlink, not a directory, another user's, or readable by others
            (its mode is not changed: the guard did not create it); or it cannot be created.
    """
    created = False
    old_umask = os.umask(0o077)
    try:
        os.mkdir(path, 0o700)  # never follows a symlink at `path`: EEXIST
        created = True
    except FileExistsError:
        pass
    except OSError as exc:
        raise StateError(f"cannot create the workspace state folder {path}: {exc.strerror or exc}") from None
    finally:
        os.umask(old_umask)
    try:
        fd = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise StateError(
                f"{path} is a symlink or not a directory; not following it (remove it, or set LOOPGUARD_STATE_DIR)"
            ) from None
        raise StateError(f"workspace state folder {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.getuid():
            raise StateError(
                f"{path} belongs to uid {st.st_uid}, not to this user; not using it (set LOOPGUARD_STATE_DIR)"
            )
        if created:
            os.fchmod(fd, 0o700)  # made here: no setgid bit inherited from the workspace
            _write_gitignore(fd)
        elif stat.S_IMODE(st.st_mode) & 0o077:
            raise StateError(
                f"{path} is readable by other users (mode {stat.S_IMODE(st.st_mode):04o}) and was not made by the "
                "guard; not using it (remove it, or set LOOPGUARD_STATE_DIR)"
            )
    finally:
        os.close(fd)
    return path


def _write_gitignore(dir_fd: int) -> None:
    try:
        fd = os.open(".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=dir_fd)
    except OSError:
        return  # only a courtesy: the state works without it
    try:
        os.write(fd, GITIGNORE)
    except OSError:
        pass
    finally:
        os.close(fd)


def operator_locations(state_dir: str | None, environ: Mapping[str, str], cwd: str) -> list[Location]:
    """The state directories `status`, `gc` and `reset` work on: the given one alone, else the
    user cache dir and the nearest `.loopguard-hook` folder in `cwd` or a parent (a DSH session's,
    or one an unwritable cache dir fell back to). A workspace folder that is a symlink, another
    user's or not private is listed with its problem and never read."""
    if state_dir:
        return [Location(state_dir, "option", "--state-dir")]
    configured = environ.get("LOOPGUARD_STATE_DIR")
    if configured:
        return [Location(configured, "environment", "LOOPGUARD_STATE_DIR")]
    out: list[Location] = []
    try:
        out.append(Location(default_state_dir(environ), "default", "the user cache dir"))
    except StateError:
        pass
    found = find_workspace(cwd)
    if found:
        why = "this project's: DSH events, or a cache dir that could not be written"
        out.append(Location(found, "workspace", why, problem=inspect_workspace(found)))
    return out


def find_workspace(cwd: str) -> str:
    """The nearest `<dir>/.loopguard-hook` entry (of any kind) in `cwd` or a parent, or ""."""
    path = os.path.abspath(cwd)
    while True:
        candidate = os.path.join(path, WORKSPACE_DIR)
        try:
            os.lstat(candidate)
            return candidate
        except OSError:
            pass
        parent = os.path.dirname(path)
        if parent == path:
            return ""
        path = parent


def inspect_workspace(path: str) -> str:
    """"" when `path` is a private folder of this user; else why it is not read."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink; not followed"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if st.st_uid != os.getuid():
        return f"belongs to uid {st.st_uid}, not to this user"
    if stat.S_IMODE(st.st_mode) & 0o077:
        return f"is readable by other users (mode {stat.S_IMODE(st.st_mode):04o}); not the guard's"
    return ""
