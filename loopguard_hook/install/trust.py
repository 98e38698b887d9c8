"""Codex hook trust: the `trusted_hash` of a handler and the `[hooks.state]` records in
`config.toml` that let Codex run it.

Client facts (Codex 0.171.0, `codex app-server` hooks/list and its hook trust code): a hook runs
only when `config.toml` holds `[hooks.state."<file>:<event_snake>:<group>:<handler>"]
trusted_hash = "sha256:…"` equal to its current hash (`trusted_hash`), or under `codex exec
--dangerously-bypass-hook-trust`; otherwise `codex exec` skips it silently. Indices count over
the event's whole list, so a hook moved up by a removal gets a new key.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from .change import Change, InstallError, make_change
from .files import made_by_install, read_text
from .handlers import handlers, is_ours
from .tomltext import header_path, is_any_header, parse_toml, toml_string

#: Codex 0.171.0 events that honour `matcher` (hooks/list; dispatcher). For the others Codex drops
#: the matcher, also from the trust hash.
_CODEX_MATCHER_EVENTS: Final = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PermissionRequest",
        "SessionStart",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
    }
)
_CODEX_DEFAULT_TIMEOUT: Final = 600


def event_label(event: str) -> str:
    """Codex's snake_case event label used in trust keys: `PreToolUse` -> `pre_tool_use`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def trusted_hash(event: str, matcher: str | None, entry: Mapping[str, Any]) -> str:
    """Codex 0.171.0's current hash of one command handler (hook trust recipe).

    `"sha256:" + hex(sha256(canonical_json(identity)))`, where identity is
    `{"event_name": <snake label>, "matcher": <matcher, omitted if absent or if the event takes
    none>, "hooks": [{"type": "command", "command": …, "timeout": <seconds, 600 if unset>,
    "async": <bool>, "statusMessage": <only if set>}]}` and canonical JSON means keys sorted at
    every depth, `,`/`:` separators, UTF-8 (Codex serialises it with serde_json).
    """
    timeout = entry.get("timeout")
    normalized: dict[str, Any] = {
        "type": "command",
        "command": entry.get("command"),
        "timeout": max(
            1,
            timeout
            if isinstance(timeout, int) and not isinstance(timeout, bool)
            else _CODEX_DEFAULT_TIMEOUT,
        ),
        "async": bool(entry.get("async", False)),
    }
    if entry.get("statusMessage") is not None:
        normalized["statusMessage"] = entry["statusMessage"]
    identity: dict[str, Any] = {"event_name": event_label(event), "hooks": [normalized]}
    if matcher is not None and event in _CODEX_MATCHER_EVENTS:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def trust_entries(
    hooks_json_path: str | os.PathLike[str], hooks: Mapping[str, Any]
) -> dict[str, str]:
    """Trust records for our handlers in one Codex hooks source: key -> trusted_hash.

    `hooks_json_path` is the source file as Codex names it (absolute: `$CODEX_HOME/hooks.json`,
    `<repo>/.codex/hooks.json`, or a `config.toml` for inline hooks); `hooks` is that file's
    `hooks` object. The key is `<path>:<event_snake>:<group index>:<handler index>` (Codex
    0.171.0), indices counted over the event's whole list. Only handlers running
    `CANONICAL_COMMAND` are included: trusting other people's hooks is not ours to do.
    """
    entries: dict[str, str] = {}
    for event, gi, hi, entry in handlers(hooks):
        if is_ours(entry) and entry.get("type", "command") == "command":
            matcher = hooks[event][gi].get("matcher")
            key = f"{os.fspath(hooks_json_path)}:{event_label(event)}:{gi}:{hi}"
            entries[key] = trusted_hash(event, matcher if isinstance(matcher, str) else None, entry)
    return entries



_TRUSTED_HASH_LINE = re.compile(r"""^(\s*)(?:trusted_hash|"trusted_hash"|'trusted_hash')\s*=""")


def plan_trust(config_path: str | os.PathLike[str], entries: Mapping[str, str]) -> Change:
    """Merge `[hooks.state."<key>"] trusted_hash = "…"` records into Codex's `config.toml`.

    Minimal text edits: a record whose table already exists gets its `trusted_hash` line replaced
    (or added under the header); a missing one is appended at the end. Nothing else in the file
    changes (comments, order, layout). The result is parsed back and must equal the old content
    plus the records, or nothing is planned. Idempotent: records already equal change nothing.

    Raises:
        InstallError: the file is not valid TOML, or a record cannot be merged by these edits
            (e.g. `hooks` is an inline table); the message gives the lines to add by hand.
    """
    path = Path(config_path)
    old_text = read_text(path)
    doc = parse_toml(path, old_text)
    hooks = doc.get("hooks", {})
    state = hooks.get("state", {}) if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        raise InstallError(
            f"{path}: hooks.state is not a table; add the trust records by hand:\n"
            + _trust_snippet(entries)
        )
    pending = {
        k: h
        for k, h in entries.items()
        if not (isinstance(state.get(k), dict) and state[k].get("trusted_hash") == h)
    }
    messages = [
        f"note: Codex hook {key} is disabled in {path} (enabled = false); "
        "trusting does not enable it"
        for key in entries
        if isinstance(state.get(key), dict) and state[key].get("enabled") is False
    ]
    if not pending:
        if entries:
            messages.append(
                f"Codex trust: all {len(entries)} loopguard-hook handlers are already trusted "
                f"in {path}"
            )
        return make_change(path, old_text, old_text, messages)
    messages.insert(
        0,
        f"records Codex trust for {len(pending)} loopguard-hook handler(s) in {path} "
        "(this skips Codex's own review of them)",
    )
    new_text = _with_records(path, old_text, state, pending)
    _check_merged(path, doc, new_text, pending)
    return make_change(path, old_text, new_text, messages)


def _with_records(
    path: Path, old_text: str | None, state: Mapping[str, Any], pending: Mapping[str, str]
) -> str:
    """`old_text` with each pending record set in its existing table or appended at the end."""
    newline = "\r\n" if old_text and "\r\n" in old_text else "\n"
    lines = (old_text or "").splitlines(keepends=True)
    appended: list[str] = []
    for key, digest in pending.items():
        record = f"trusted_hash = {toml_string(digest)}{newline}"
        starts = [
            i for i, line in enumerate(lines) if header_path(line) == ("hooks", "state", key)
        ]
        if not starts:
            if key in state:
                raise InstallError(
                    f"{path}: the trust record {key!r} is not written as a [hooks.state.…] "
                    "table, so it cannot be edited safely; set it by hand:\n"
                    + _trust_snippet({key: digest})
                )
            appended += [newline, f"[hooks.state.{toml_string(key)}]{newline}", record]
            continue
        start = starts[0]
        end = next(
            (i for i in range(start + 1, len(lines)) if is_any_header(lines[i])), len(lines)
        )
        for i in range(start + 1, end):
            match = _TRUSTED_HASH_LINE.match(lines[i])
            if match:
                lines[i] = match.group(1) + record
                break
        else:
            lines.insert(start + 1, record)
    if appended:
        comment = TRUST_COMMENT + newline
        if lines:
            if not lines[-1].endswith(("\n", "\r")):
                lines[-1] += newline
            lines += [newline, comment] + appended[1:]
        else:
            lines += [comment] + appended[1:]
    return "".join(lines)


def _check_merged(path: Path, doc: Mapping[str, Any], new_text: str, pending: Mapping[str, str]) -> None:
    """Raises `InstallError` unless `new_text` parses to `doc` plus exactly the pending records."""
    expected = copy.deepcopy(dict(doc))
    target = expected.setdefault("hooks", {}).setdefault("state", {})
    for key, digest in pending.items():
        target.setdefault(key, {})["trusted_hash"] = digest
    try:
        merged = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        merged = {"<unparsable>": str(exc)}
    if merged != expected:
        raise InstallError(
            f"{path}: cannot add the trust records without disturbing the file (its hooks tables "
            "are written in a form these edits do not handle); add them by hand:\n"
            + _trust_snippet(pending)
        )


def _trust_snippet(entries: Mapping[str, str]) -> str:
    return "".join(
        f"[hooks.state.{toml_string(key)}]\ntrusted_hash = {toml_string(digest)}\n"
        for key, digest in entries.items()
    )


def codex_trust_state(config: Path) -> tuple[dict[str, Any], str | None]:
    """(hooks.state table, error) of Codex's config.toml: ({}, message) when it is unreadable."""
    try:
        doc = parse_toml(config, read_text(config))
    except InstallError as exc:
        return {}, str(exc)
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return (state if isinstance(state, dict) else {}), None


def trust_hint(entries: Mapping[str, str], config: Path, scope: str) -> list[str]:
    """After an install without `--trust`: whether `entries` are trusted in `config`, or how to."""
    if not entries:
        return []
    state, error = codex_trust_state(config)
    if error is None and all(
        isinstance(state.get(k), dict) and state[k].get("trusted_hash") == h
        for k, h in entries.items()
    ):
        return [f"Codex trust: all {len(entries)} handlers are trusted in {config}"]
    return [
        "Codex runs a new hook only after you trust it (until then `codex exec` skips it without a "
        "word). Either review and trust it under /hooks in the Codex TUI, or run "
        f"`loopguard-hook install --client codex{'' if scope == 'user' else ' --scope ' + scope} --trust` "
        "to record its hash in "
        f"{config} (this skips Codex's review of the hook), or, for a one-off test, run "
        "`codex exec --dangerously-bypass-hook-trust`."
    ]


def trust_status(entries: Mapping[str, str], config: Path) -> dict[str, str]:
    """For each trust key of `entries` (key -> current hash): "trusted" when `config`'s record
    holds that hash, "disabled" when the record says `enabled = false`, "changed" when it holds
    another hash (the hook changed since it was trusted), else "untrusted". An unreadable
    config.toml counts as holding no records (Codex then refuses to start anyway)."""
    state, _ = codex_trust_state(config)
    out: dict[str, str] = {}
    for key, digest in entries.items():
        record = state.get(key)
        if not isinstance(record, dict):
            out[key] = "untrusted"
        elif record.get("enabled") is False:
            out[key] = "disabled"
        elif record.get("trusted_hash") == digest:
            out[key] = "trusted"
        else:
            out[key] = "changed" if record.get("trusted_hash") else "untrusted"
    return out


#: The comment `plan_trust` writes above the records it appends.
TRUST_COMMENT = "# Codex hook trust for loopguard-hook (written by `loopguard-hook install --trust`)"


def plan_untrust(config_path: str | os.PathLike[str], entries: Mapping[str, str]) -> tuple[Change | None, list[str]]:
    """Take out of Codex's `config.toml` the trust records `plan_trust` wrote for the handlers
    `uninstall` removes (`entries`: trust key -> their current hash), and nothing else.

    A record goes only when it is still as install wrote it: a `[hooks.state."<key>"]` table
    holding `trusted_hash` = that hash and nothing more (no `enabled`, no other key, no comment
    inside it). Its blank line before it goes too, and the comment install put above its records
    once no record follows it. The result is parsed back and must equal the old document less
    those records, or the file is left alone. Writes nothing.

    Returns:
        (the change, or None when nothing is to go; notes on records that stay and why).
    """
    path = Path(config_path)
    try:
        old_text = read_text(path)
        doc = parse_toml(path, old_text)
    except InstallError as exc:
        return None, [f"note: the Codex trust records stay: {exc}"] if entries else []
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if old_text is None or not isinstance(state, dict):
        return None, []
    lines = old_text.splitlines(keepends=True)
    gone: list[str] = []
    kept: list[str] = []
    for key, digest in entries.items():
        if key not in state:
            continue
        span = _record_span(lines, key, digest) if state[key] == {"trusted_hash": digest} else None
        if span is None:
            kept.append(key)
            continue
        start, end = span
        if start > 0 and not lines[start - 1].strip():
            start -= 1
        lines[start:end] = []
        gone.append(key)
    notes = [
        f"note: {len(kept)} Codex trust record(s) of the removed hooks stay in {path}: they changed since install "
        "wrote them (they match only these exact hooks, and are harmless)"
    ] if kept else []
    if not gone:
        return None, notes
    new_text = "".join(_without_lone_comment(lines))
    expected = copy.deepcopy(doc)
    for key in gone:
        del expected["hooks"]["state"][key]
    try:
        merged = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError:
        merged = None
    if merged is None or _pruned(merged) != _pruned(expected):
        return None, [f"note: the Codex trust records of the removed hooks stay in {path}: they cannot be taken out "
                      "without disturbing the file (remove their [hooks.state.…] tables by hand)"]
    message = f"removes the {len(gone)} Codex trust record(s) install wrote for them from {path}"
    if not new_text.strip() and made_by_install(path):  # install made the file for them alone
        return make_change(path, old_text, None, [message, f"{path} held only what install wrote: it goes", *notes],
                           deletable=True), []
    return make_change(path, old_text, new_text, [message, *notes]), []


def _record_span(lines: list[str], key: str, digest: str) -> tuple[int, int] | None:
    """(first, end) lines of the table `[hooks.state."<key>"]` when it holds only the
    `trusted_hash = "<digest>"` line install wrote (blank lines after it included), else None."""
    starts = [i for i, line in enumerate(lines) if header_path(line) == ("hooks", "state", key)]
    if len(starts) != 1:
        return None
    start = starts[0]
    end = next((i for i in range(start + 1, len(lines)) if is_any_header(lines[i])), len(lines))
    body = [line.strip() for line in lines[start + 1 : end] if line.strip()]
    if body != [f"trusted_hash = {toml_string(digest)}"]:
        return None
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end


def _without_lone_comment(lines: list[str]) -> list[str]:
    """`lines` less install's comment (and the blank line before it) where no table follows it
    any more, or only one that is not a trust record."""
    drop: set[int] = set()
    for i, line in enumerate(lines):
        if line.strip() != TRUST_COMMENT:
            continue
        following = next((later for later in lines[i + 1 :] if later.strip()), "")
        path = header_path(following)
        if path is not None and path[:2] == ("hooks", "state"):
            continue
        drop |= {i, i - 1} if i > 0 and not lines[i - 1].strip() else {i}
    return [line for i, line in enumerate(lines) if i not in drop]


def _pruned(doc: Mapping[str, Any]) -> dict[str, Any]:
    """`doc` with an empty `hooks.state`, then an empty `hooks`, left out (removing the last
    record removes the tables that held it)."""
    out = copy.deepcopy(dict(doc))
    hooks = out.get("hooks")
    if isinstance(hooks, dict):
        if hooks.get("state") == {}:
            del hooks["state"]
        if not hooks:
            del out["hooks"]
    return out
