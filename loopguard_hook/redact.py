"""Replace secrets in text before it is written to the audit log, the state file or `status`.

Covers API keys by their well-known shapes (`sk-…`, `ghp_…`/`github_pat_…`, `AKIA…`,
`xox?-…`, `AIza…`), bearer tokens, `Authorization:` header values (as in `curl -H`),
`password=`-style assignments, `.env`-style `SECRET_KEY=value` lines and JSON `"password": …`
pairs (also inside a call's canonical JSON, where quotes are escaped), URL credentials,
`curl -u user:password` and PEM private-key blocks.

Every pattern runs in linear time: `redact` also sees whole error texts, so no pattern may
backtrack over a long run of name characters.
"""

from __future__ import annotations

import functools
import re

MASK = "[REDACTED]"

@functools.cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The patterns, compiled on the first call: events that redact nothing skip the cost."""
    return (
        (
            re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S),
            MASK,
        ),
        (re.compile(r"(?i)(authorization\s*[:=]\s*)(?:(?:bearer|basic|token)\s+)?[^\s'\"\\,;]+"), r"\1" + MASK),
        (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"), r"\1" + MASK),
        (re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{16,}"), MASK),  # also sk-proj-…, sk-ant-…
        (re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"), MASK),
        (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK),
        (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
        (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
        (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), MASK),
        (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), MASK),
        (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), MASK),
        # URL credentials; a password may itself hold an "@", so mask up to the last one of the host part
        (re.compile(r"(?i)(://[^/\s:@]++:)[^\s/]*(@)"), r"\1" + MASK + r"\2"),
        (re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}"), MASK),
        (re.compile(r"(?i)\bhooks\.slack\.com/services/\S+|\bdiscord(?:app)?\.com/api/webhooks/\S+"), MASK),
        (re.compile(r"(?i)(\b(?:set-)?cookie\s*[:=]\s*)[^\n'\"\\]+"), r"\1" + MASK),
        # passwords given as a flag: mysql -pSECRET, sshpass -p SECRET, redis-cli -a SECRET, docker login -p
        (
            re.compile(r"(?i)(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?\s-p)(?=[^\s-])('[^']*'?|\"[^\"]*\"?|\S+)"),
            r"\1" + MASK,
        ),
        (
            re.compile(
                r"(?i)(\b(?:sshpass|redis-cli|(?:docker|podman|helm registry) login)\b[^\n|;&]{0,200}?\s-[pa]\s+)"
                r"('[^']*'?|\"[^\"]*\"?|\S+)"
            ),
            r"\1" + MASK,
        ),
        (
            re.compile(
                # a whole name (matched possessively, so a long dotted run costs linear time) that
                # contains a key word
                r"(?i)(?<![A-Z0-9_.-])((?=[A-Z0-9_.-]*?(?:passw(?:or)?d|passwd|pwd|pass(?![a-z])|secret|token|"
                r"api[_-]?key|apikey|access[_-]?key|private[_-]?key|(?<![a-z])key(?![a-z])|credentials?|auth))"
                r"[A-Z0-9_.-]++"
                # the key may close a quote (`"password": "x"`, also JSON-escaped as `\"password\"`)
                r"(?:\\?[\"'])?\s*[=:]\s*)"
                # the value: quoted, quoted inside a JSON string (`\"x\"`, as in a call's canonical
                # arguments), or bare; a quote left open by a cut preview still hides the rest
                r"(\\\"(?:[^\"\\]|\\[^\"])*(?:\\\")?|\"[^\"]*\"?|'[^']*'?|[^\s'\",;&\\]+)"
            ),
            r"\1" + MASK,
        ),
        (re.compile(r"(?i)(--(?:password|token|api-key|secret)[= ])\S+"), r"\1" + MASK),
        # `curl -u user:password`, `--user user:password`
        (re.compile(r"(?i)((?:^|\s)(?:-u|--user)[= ]?\s*\\?[\"']?[^\s:'\"\\]+:)[^\s'\"\\]+"), r"\1" + MASK),
    )


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[REDACTED]`."""
    for pattern, replacement in _patterns():
        text = pattern.sub(replacement, text)
    return text
