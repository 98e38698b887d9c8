"""Replace secrets in text before it is written to the audit log, the state file or `status`.

Covers API keys by their well-known shapes (`sk-…`, `ghp_…`/`github_pat_…`, `AKIA…`,
`xox?-…`, `AIza…`), bearer tokens, `Authorization:` header values (as in `curl -H`),
`password=`-style assignments, `.env`-style `SECRET_KEY=value` lines and JSON `"password": …`
pairs (also inside a call's canonical JSON, where quotes are escaped), URL credentials,
`curl -u user:password` and PEM private-key blocks.

Every pattern runs in linear time: `redact` also sees whole error texts, so no pattern may
backtrack over a long run of name characters.
"""

import re
from typing import NamedTuple

MASK = "[REDACTED]"


class _Rule(NamedTuple):
    """A pattern, and the substrings one of which every match contains (lower case when the
    pattern ignores case): a text without them skips the pattern, and its compilation
    (compiling all the rules costs about 3 ms, more than the rest of a hook event, and most
    texts trigger none of them)."""

    triggers: tuple[str, ...]
    pattern: str
    flags: int
    nocase: bool


def _rule(triggers: tuple[str, ...], pattern: str, flags: int = 0) -> _Rule:
    return _Rule(triggers, pattern, flags, pattern.startswith("(?i)"))


_RULES: tuple[tuple[_Rule, str], ...] = (
    (
        _rule(("-----BEGIN",), r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S),
        MASK,
    ),
    # an HTTP Digest header: its fields up to the closing quote (`response="…"` is a hash of
    # the password)
    (_rule(("digest",), r"(?i)(\bdigest\s+)[^\n']+"), r"\1" + MASK),
    # the whole header value up to its quote or line end: `Basic $(echo -n user:pw | base64)`
    # and `Digest … response="…"` hide their secret after the first word
    (_rule(("authorization",), r"(?i)(authorization\\*\s*[:=](?:\\*\s)*)(?:[^\n'\"\\]|\\+ )+"), r"\1" + MASK),
    (_rule(("bearer",), r"(?i)\b(bearer(?:\\*\s)+)[A-Za-z0-9._~+/=-]{8,}"), r"\1" + MASK),
    (_rule(("k-",), r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{16,}"), MASK),  # also sk-proj-…, sk-ant-…
    (_rule(("gh",), r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"), MASK),
    (_rule(("github_pat_",), r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK),
    (_rule(("AKIA", "ASIA"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (_rule(("xox",), r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
    (_rule(("AIza",), r"\bAIza[0-9A-Za-z_-]{35}\b"), MASK),
    (_rule(("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}"), MASK),
    (_rule(("eyJ",), r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), MASK),
    # URL credentials; a password may itself hold an "@", so mask up to the last one of the host part
    (_rule(("://",), r"(?i)(://[^/\s:@]++:)[^\s/]*(@)"), r"\1" + MASK + r"\2"),
    (_rule(("k_live_", "k_test_"), r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}"), MASK),
    (_rule(("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"), MASK),
    # signed URLs: S3 presigned (`X-Amz-Signature=`), Azure SAS (`sig=`)
    (_rule(("signature", "sig="), r"(?i)([?&](?:x-amz-signature|x-amz-credential|signature|sig)=)[^&\s'\"\\#]+"), r"\1" + MASK),
    (_rule(("aws_secret_access_key",), r"(?i)(\baws_secret_access_key\s+)[^\s'\"\\]+"), r"\1" + MASK),
    (
        _rule(("hooks.slack.com", "discord"), r"(?i)\bhooks\.slack\.com/services/\S+|\bdiscord(?:app)?\.com/api/webhooks/\S+"),
        MASK,
    ),
    (_rule(("cookie",), r"(?i)(\b(?:set-)?cookie\s*[:=]\s*)[^\n'\"\\]+"), r"\1" + MASK),
    # passwords given as a flag: mysql -pSECRET, sshpass -p SECRET, redis-cli -a SECRET, docker login -p
    (
        _rule(
            ("mysql", "mariadb"),
            r"(?i)(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?\s-p)(?=[^\s-])('[^']*'?|\"[^\"]*\"?|\S+)",
        ),
        r"\1" + MASK,
    ),
    (
        _rule(("sshpass", "redis-cli", "login"),
            r"(?i)(\b(?:sshpass|redis-cli|(?:docker|podman|helm registry) login)\b[^\n|;&]{0,200}?\s-[pa]\s*)(?=[^\s-])"
            r"('[^']*'?|\"[^\"]*\"?|\S+)"
        ),
        r"\1" + MASK,
    ),
    (
        _rule(("pass", "pwd", "secret", "token", "key", "credential", "auth"),
            # a whole name (matched possessively, so a long dotted run costs linear time) that
            # contains a key word
            r"(?i)(?<![A-Z0-9_.-])((?=[A-Z0-9_.-]*?(?:passw(?:or)?d|passwd|passphrase|pwd|pass(?![a-z])|secret|token|"
            r"api[_-]?key|apikey|access[_-]?key|private[_-]?key|(?<![a-z])key(?![a-z])|credentials?|auth))"
            r"[A-Z0-9_.-]++"
            # the key may close a quote (`"password": "x"`, also JSON-escaped as `\"password\"`)
            r"(?:\\?[\"'])?\s*[=:]\s*)"
            # the value: quoted, quoted inside a JSON string (`\"x\"`, as in a call's canonical
            # arguments), or bare; a quote left open by a cut preview still hides the rest
            r"(\[[^\]]*\]?|\\\"(?:[^\"\\]|\\[^\"])*(?:\\\")?|\"[^\"]*\"?|'[^']*'?|[^\s'\",;&\\]+)"
        ),
        r"\1" + MASK,
    ),
    (_rule(("--",), r"(?i)(--(?:password|token|api-key|secret)[= ])\S+"), r"\1" + MASK),
    # `curl -u user:password`, `--user user:password`
    (_rule(("-u",), r"(?i)((?:^|\s)(?:-u|--user)[= ]?\s*\\?[\"']?[^\s:'\"\\]+:)[^\s'\"\\]+"), r"\1" + MASK),
)


#: JSON string escapes that stand for whitespace. In a call's canonical JSON a secret after a
#: newline reads `\nghp_…`: the letter before it would defeat every `\b` and `^` of the patterns.
_ESCAPED_SPACE = {"\\n": " \n", "\\r": " \r", "\\t": " \t"}
#: How far past a cut redaction looks, so a secret that straddles it is seen whole (characters).
MARGIN = 1024
_SEPARATORS = " \t\n\r\"'`,;&|()[]{}<>\\"


def redact(text: str) -> str:
    r"""`text` with every recognised secret replaced by `[REDACTED]`.

    JSON escapes of whitespace (`\n`, `\r`, `\t`) count as whitespace for the patterns; the
    text outside a secret is returned as it was.
    """
    shadow = _shadow(text)
    lowered: str | None = None
    for rule, replacement in _RULES:
        if rule.nocase:
            if lowered is None:
                lowered = text.lower()
            if not any(t in lowered for t in rule.triggers):
                continue
        elif not any(t in text for t in rule.triggers):
            continue
        pattern = re.compile(rule.pattern, rule.flags)  # compiled once, then from `re`'s cache
        if shadow is None:
            changed = pattern.sub(replacement, text)
            if changed != text:
                text, lowered = changed, None
            continue
        # Match on the shadow (escapes shown as the whitespace they stand for) and make the same
        # replacements, at the same places, in both: they stay the same length apart from them.
        out_text: list[str] = []
        out_shadow: list[str] = []
        last = 0
        for match in pattern.finditer(shadow):
            masked = match.expand(replacement)
            out_text += (text[last : match.start()], masked)
            out_shadow += (shadow[last : match.start()], masked)
            last = match.end()
        if out_text:
            text = "".join(out_text) + text[last:]
            shadow = "".join(out_shadow) + shadow[last:]
            lowered = None
    return text



def _shadow(text: str) -> str | None:
    if "\\" not in text:
        return None
    shadow = text
    for escape, space in _ESCAPED_SPACE.items():
        shadow = shadow.replace(escape, space)
    return None if shadow == text else shadow


def redact_prefix(text: str, limit: int, *, complete: bool = True) -> str:
    """The first `limit` characters of `text`, secrets replaced, never half a secret.

    Redaction runs before the cut, over at most `limit + MARGIN` characters. When that window is
    itself a cut (of `text`, or `text` is already the head of a longer one: `complete=False`),
    its last, possibly partial, token is dropped first, since half a secret escapes its pattern.
    """
    window = text[: limit + MARGIN]
    if not complete or len(window) < len(text):
        cut = max(window.rfind(ch) for ch in _SEPARATORS)
        window = window[: max(cut, 0)]
    return redact(window)[:limit]
