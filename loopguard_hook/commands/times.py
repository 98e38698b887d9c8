"""Times as operators type them: a span (`30m`, `2h`, `1h30m`, `90s`, `2d`, `1w`) or a point in time
(a span ago, or an ISO date `2026-12-01`, `2026-12-01T14:00`, `2026-12-01 14:00`, local time
unless it names its offset). Click parameter types, so a bad value is a usage error naming the
option."""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any

import click

#: One grammar for every span an operator types (`pause --for`, `log --since`, `gc --older-than`):
#: whole numbers of weeks, days, hours, minutes and seconds, in that order, ASCII digits only.
_SPAN = re.compile(r"(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?")
_UNITS = (604800, 86400, 3600, 60, 1)


#: The longest span `parse_pause_span` takes (100 years, in seconds).
MAX_SPAN_SECONDS = 100 * 365 * 86400


def parse_span(text: str, *, unit: bool = False, zero: bool = False) -> float:
    """Seconds in `text` (`30m`, `2h`, `1h30m`, `90s`, `2d`, `1w`; a bare number is seconds
    unless `unit` says one is required; zero only with `zero`). Units are lower case: `1M` is
    not read as a minute (or a month).

    Raises:
        ValueError: not such a span, a bare number where a unit is required, zero, or too long
            for a float.
    """
    text = text.strip()
    if text.isascii() and text.isdigit() and not unit:
        seconds = int(text)
    else:
        match = _SPAN.fullmatch(text)
        if not text or match is None:
            required = " (the unit is required)" if unit and text.isascii() and text.isdigit() else ""
            required = required or (" (units are lower case)" if text.lower() != text else "")
            raise ValueError(f"{text!r} is not a span of time such as 30m, 2h, 1h30m, 90s, 2d or 1w{required}")
        seconds = sum(int(part or 0) * each for part, each in zip(match.groups(), _UNITS, strict=True))
    if seconds <= 0 and not (zero and seconds == 0):
        raise ValueError(f"{text!r} is no time at all")
    try:
        return float(seconds)
    except OverflowError:  # more digits than a float holds: no clock reaches it
        raise ValueError(f"{text!r} is longer than any clock can count") from None


def parse_pause_span(text: str) -> float:
    """`parse_span`, at most `MAX_SPAN_SECONDS`: a pause's end past the clocks' range would make
    the pause file read as damaged at every event.

    Raises:
        ValueError: not such a span, zero, or longer than 100 years.
    """
    seconds = parse_span(text)
    if seconds > MAX_SPAN_SECONDS:
        raise ValueError(f"{text.strip()!r} is longer than 100 years; leave --for out to pause until resume")
    return seconds


def parse_when(text: str, now: float | None = None) -> float:
    """Seconds since the epoch of `text`: a span ago (`2h`), or an ISO date or date and time.

    Raises:
        ValueError: neither.
    """
    now = time.time() if now is None else now
    try:
        return now - parse_span(text)
    except ValueError:
        pass
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{text!r} is neither a span ago (2h, 30m, 1d) nor a date (2026-12-01, 2026-12-01T14:00)"
        ) from None
    return moment.timestamp()  # naive: local time


class _Parsed(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.2 only
    """A click type whose value is `parse(text)`; a ValueError is a usage error naming the option."""

    parse = staticmethod(parse_pause_span)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            return value
        try:
            return self.parse(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def parse_age(text: str) -> float:
    """`parse_span` with the unit required and zero taken (`gc --older-than`: `7` could mean seven
    days as easily as seven seconds, and it deletes state; `0s` is every idle session).

    Raises:
        ValueError: not such a span, or a bare number.
    """
    return parse_span(text, unit=True, zero=True)


class Age(_Parsed):
    """An idle time in seconds, for `gc --older-than` (`parse_age`)."""

    name = "SPAN"
    parse = staticmethod(parse_age)


class Span(_Parsed):
    """A span of time in seconds, for `pause --for` (`parse_pause_span`)."""

    parse = staticmethod(parse_pause_span)

    name = "SPAN"


class When(_Parsed):
    """A point in time, seconds since the epoch (`parse_when`)."""

    name = "TIME"
    parse = staticmethod(parse_when)


def clock(seconds: float) -> str:
    """`2026-12-01 14:03:27` in local time; `?` for a time no clock can show (a damaged record's)."""
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
    except (OverflowError, OSError, ValueError):
        return "?"
