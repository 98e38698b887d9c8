"""Replace secrets in text before it is written to the audit log, the state file or `status`.

Covers API keys by their well-known shapes (`sk-…`, `ghp_…`/`github_pat_…`, `AKIA…`,
`xox?-…`, `AIza…`), bearer tokens, `Authorization:` header values (as in `curl -H`),
`password=`-style assignments, `.env`-style `SECRET_KEY=value` lines, URL credentials and
PEM private-key blocks.
"""

from __future__ import annotations

import re

MASK = "[REDACTED]"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S),
        MASK,
    ),
    (re.compile(r"(?i)(authorization\s*[:=]\s*)(?:(?:bearer|basic|token)\s+)?[^\s'\"\\,;]+"), r"\1" + MASK),
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"), r"\1" + MASK),
    (re.compile(r"\b(?:sk|rk|pk)-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9_-]{16,}"), MASK),
    (re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"), MASK),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), MASK),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), MASK),
    (re.compile(r"(?i)(://[^/\s:@]+:)[^@\s/]+(@)"), r"\1" + MASK + r"\2"),
    (
        re.compile(
            r"(?i)\b([A-Z0-9_.-]*(?:passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|apikey|"
            r"access[_-]?key|private[_-]?key|credentials?|auth)[A-Z0-9_.-]*\s*[=:]\s*)"
            r"(\"[^\"]*\"|'[^']*'|[^\s'\",;&]+)"
        ),
        r"\1" + MASK,
    ),
    (re.compile(r"(?i)(--(?:password|token|api-key|secret)[= ])\S+"), r"\1" + MASK),
)


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[REDACTED]`."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
