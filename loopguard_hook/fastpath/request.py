"""A worker's side of a request (client.py writes it): the header, the payload, and for a big
payload the client's stdin descriptor (`SCM_RIGHTS`, sent with the request's first bytes), from
which the worker reads the payload's rest once it has taken the event.
"""

import fcntl
import marshal
import mmap
import os
import select
import socket
import stat
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

from .. import process
from . import client

#: A client sends its request right after the greeting; a worker waits this long for it.
REQUEST_TIMEOUT = 10.0
#: Largest request header (options, environment, directory) accepted.
MAX_HEAD_BYTES = 4 << 20


def read_request(conn: socket.socket, *, decline: bool = False,
                 admit: "Callable[[dict[str, Any], dict[str, str], int], bool] | None" = None
                 ) -> tuple[dict[str, Any], dict[str, str], int, float, list[bytes | memoryview]] | None:
    """(options, environment, umask, clock, [payload]) of the client's request, with this worker
    already in the client's directory; None when there is nothing to run (declined: asked to
    (`decline`, a client this helper must not act for), the client's directory is not reachable
    from here, its stdin did not come with the request, or `admit` (a workspace helper's check,
    given the request's last descriptor, its proof) refuses it, so the client runs the event
    itself; or a header too big). A big payload's rest is read from the client's stdin only once
    the event is taken."""
    start, passed = receive_start(conn)
    try:
        size = int.from_bytes(start, "little")
        if size > MAX_HEAD_BYTES:
            return None
        values, environ, cwd, mask, clock, length, *more = marshal.loads(client.read_exactly(conn, size))
        payload: list[bytes | memoryview] = [_read_payload(conn, length)]
        try:
            if decline:
                raise OSError("a client this helper does not act for")
            if len(passed) < bool(more) + (admit is not None):  # nothing of stdin was read here
                raise OSError("a descriptor did not come with the request")
            os.chdir(cwd)
            if admit is not None and not admit(values, environ, passed[-1]):
                raise OSError("not a request of this workspace")
        except OSError:
            conn.sendall(client.DECLINE)  # before reading its stdin, which it then reads whole
            return None
        if more:
            payload.append(read_rest(passed[0], bytes(payload.pop())))
        return values, environ, mask, clock, payload
    finally:
        close_all(passed)


def _read_payload(conn: socket.socket, length: int) -> bytes:
    """The `length` payload bytes, received straight into one bytes object (a 5 MiB Write is
    17 MB: no second copy). A blocking receive with a kernel timeout, so a stalled client still
    frees this child."""
    conn.settimeout(None)
    seconds = int(REQUEST_TIMEOUT)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("@ll", seconds, 0))
    raw = conn.recv(length, socket.MSG_WAITALL) if length else b""
    if len(raw) != length:
        raise ConnectionError("request cut short")
    return raw


def receive_start(conn: socket.socket) -> tuple[bytes, list[int]]:
    """The request's first 8 bytes (its header's size) and the descriptors sent with them (the
    client's stdin, for a big payload)."""
    fds: list[int] = []
    start = b""
    while len(start) < 8:
        data, ancillary, _, _ = conn.recvmsg(8 - len(start), socket.CMSG_SPACE(4 * MAX_PASSED))
        for level, kind, items in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += [int.from_bytes(items[i : i + 4], sys.byteorder) for i in range(0, len(items) - 3, 4)]
        if not data:
            close_all(fds)
            raise ConnectionResetError("connection closed early")
        start += data
    return start, fds


#: Descriptors a request may carry (one: stdin); more are closed unread.
MAX_PASSED = 4


def close_all(fds: list[int]) -> None:
    """Close received descriptors (errors ignored: each is closed once, whatever happened)."""
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


#: How long a worker reads the rest of a big payload from the client's stdin: under the client's
#: `REPLY_TIMEOUT` (10 s), so that a stdin that never ends is one stderr line from the worker
#: (the payload is too big or cut short), not the client giving up.
STDIN_SECONDS = 8.0
#: The pipe buffer asked for while a big payload is read from a pipe (`/proc/sys/fs/pipe-max-size`).
PIPE_BYTES = 1 << 20


def read_rest(fd: int, first: bytes, limit: int = process.MAX_PAYLOAD_BYTES + 1) -> bytes | memoryview:
    """The whole payload: `first` (what the client read of stdin `fd`) and the rest of `fd`, at
    most `limit` bytes in all, without a copy to join them. A regular file is mapped (from where
    `first` began); a pipe or socket is read into one anonymous mapping until its end, within
    `STDIN_SECONDS`."""
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode):
        view = _mapped(fd, first, st.st_size, limit)
        if view is not None:
            return view
    if stat.S_ISFIFO(st.st_mode):
        try:  # 1 MiB (the unprivileged maximum) instead of 64 KiB: 16 times fewer wake-ups of each side
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass
    buffer = _reused(len(first))
    buffer[: len(first)] = first
    size = len(first)
    deadline = time.monotonic() + STDIN_SECONDS
    while size < limit:
        if size == len(buffer):  # past what a worker keeps: the rest goes to memory of its own
            buffer = _grown(buffer, max(limit, len(first)))
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([fd], [], [], wait)[0]:
            raise TimeoutError("the client's stdin did not end")
        try:
            got = os.readv(fd, [memoryview(buffer)[size:limit]])
        except BlockingIOError:
            continue
        if not got:
            break
        size += got
    return memoryview(buffer)[:size]


#: Bytes of the buffer a worker keeps for big payloads read from a pipe (a 5 MiB Write is about
#: 17 MB): its pages, once written, are not given back, so the next big event finds them ready
#: (fresh pages cost more than the pipe itself: 18 ms against 7 ms for 17 MB here).
KEPT_BYTES = 32 << 20
_kept: list[mmap.mmap] = []


def _reused(least: int) -> mmap.mmap:
    """The worker's kept buffer (created on first use; one event reads into it at a time)."""
    if not _kept:
        _kept.append(mmap.mmap(-1, max(KEPT_BYTES, least)))
    return _kept[0]


def _grown(buffer: mmap.mmap, size: int) -> mmap.mmap:
    """Anonymous memory of `size` bytes holding `buffer`'s (the kernel gives its pages as they
    are written to, so nothing is copied to grow it again)."""
    grown = mmap.mmap(-1, size)
    grown[: len(buffer)] = buffer[:]
    return grown


def _mapped(fd: int, first: bytes, size: int, limit: int) -> memoryview | None:
    """The payload in the regular file `fd`, mapped read-only from where `first` began; None
    when it is not there as read (a file changed meanwhile, or empty).

    At most `begin + limit` bytes are mapped, and read ahead (`MAP_POPULATE`) only when the
    payload fits: a file larger than that (a 6 GiB one given as stdin) is only ever touched in
    its first bytes, and the answer is that it is too big."""
    begin = os.lseek(fd, 0, os.SEEK_CUR) - len(first)
    if begin < 0 or size <= begin:
        return None
    length = min(size, begin + limit)
    populate = getattr(mmap, "MAP_POPULATE", 0) if size - begin < limit else 0
    try:
        mapping = mmap.mmap(fd, length, flags=mmap.MAP_SHARED | populate, prot=mmap.PROT_READ)
    except (OSError, ValueError):
        return None
    view = memoryview(mapping)[begin:length]
    return view if view[: len(first)] == first else None
