"""Keeping a ledger table within its bound (`ledger.py` declares the tables and their bounds)."""

from collections.abc import Callable
from typing import TypeVar

V = TypeVar("V")


def trim(table: dict[str, V], limit: int, key: Callable[[str], float | tuple[bool, int]]) -> None:
    """Drop the entries that sort first by `key` until `table` holds at most `limit`."""
    if len(table) > limit:
        for name in sorted(table, key=key)[: len(table) - limit]:
            del table[name]
