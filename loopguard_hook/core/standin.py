"""Stand-ins for big texts: how the core recognises, identifies and shows a text the host layer
left undecoded (`hosts/bigtext.py` makes them: its head and tail around a token naming its length
and a CRC of the bytes between). Pure: no I/O.
"""

#: Starts the token inside a stand-in (a NUL never comes from a host's JSON unescaped text).
TOKEN = "\x00loopguard-big-text "


def shown(text: str) -> str:
    """`text` up to a stand-in's token (with `…` when cut there): what may be quoted or logged."""
    at = text.find(TOKEN)
    if at < 0:  # a cut may have left the token's start at the end
        at = next((len(text) - k for k in range(len(TOKEN) - 1, 1, -1) if text.endswith(TOKEN[:k])), -1)
    return text if at < 0 else text[:at] + "…"


def is_stand_in(value: object) -> bool:
    """Whether `value` is a stand-in for a big text."""
    return isinstance(value, str) and TOKEN in value


def token_of(value: str) -> str:
    """The token of a stand-in (what identifies its text)."""
    start = value.find(TOKEN)
    return value[start : value.find("\x00", start + 1) + 1]
