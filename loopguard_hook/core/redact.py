"""Replace secrets in text before it is written to the audit log, the state file or `status`,
or quoted to the model.

Secrets are recognised as families, not as single strings:

- names: every name holding a secret word (`password`, `passwd`, `pwd`, `pass`, `secret`,
  `token`, `credential`, `auth`, and `key` as a word or at the end) in any case style
  (`accountKey`, `AccountKey`, `account_key`, `ACCOUNT_KEY`, `account-key`, `account.key`,
  `masterkey`), as `NAME=value`, `NAME: value`, JSON `"NAME": "value"` (also inside a call's
  canonical JSON, where quotes are escaped) or a query parameter; and secret flags (`--auth-token
  X`, `--client-secret X`, `-storepass X`, …);
- URL credentials with or without a user (`redis://:PW@host`, `https://user:PW@host`) and a
  token standing alone as the user (`https://TOKEN@host`);
- the positional passwords of common tools: `.netrc` lines (`machine … login … password X`),
  `password X` and Redis' `requirepass X`, `zip -P`, `7z -p`, `openssl -k`/`-K`/`pass:X`,
  `smbclient -U user%X`, `ldapsearch -w`, `mysql -pX`, `sshpass -p`, `docker login -p`, `az login -p`, `htpasswd -b`,
  `ssh-keygen -N`, `echo PW | sudo -S`, `curl -u user:X`;
- well-known token shapes (`sk-…`, `ghp_…`/`github_pat_…`, `AKIA…`, `xox?-…`, `AIza…`, JWTs),
  bearer tokens, `Authorization:` and cookie header values, the AWS secret key printed next to
  its `AKIA` id and PEM private-key blocks. Beyond these, the token shapes of about 220
  services come as data from gitleaks' rule set (`secret_rules.py`, MIT licence, written by
  `tools/secret_rules_from_gitleaks.py`); each is compiled only when one of its keywords is in
  the text.

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


#: A shell word: quoted, quoted inside a JSON string (`\"x\"`, as in a call's canonical
#: arguments), or bare; a quote left open by a cut still hides the rest.
_VALUE = r"'[^']*'?|\"[^\"]*\"?|\\\"(?:[^\"\\]|\\[^\"])*(?:\\\")?|[^\s'\"\\|;&]+"

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
    # the secret access key printed next to its id (`aws iam create-access-key --output text`)
    (
        _rule(("AKIA", "ASIA"),
            r"(\b(?:AKIA|ASIA)[0-9A-Z]{16}\b(?s:.{0,300}?))(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
        r"\1" + MASK,
    ),
    (
        _rule(("AKIA", "ASIA"),
            r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])(?=(?s:.{0,300}?)\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)"),
        MASK,
    ),
    (_rule(("AKIA", "ASIA"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    # token families by prefix, at any length (the data rules below know the exact shapes)
    (
        _rule(("xapp-", "SG.", "hf_", "ya29.", "dckr_", "gls", "glc_", "pypi-", "shp", "hvs.", "hvb.", "hvr."),
            r"\b(?:xapp-\d-[A-Za-z0-9-]{10,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}"
            r"|ya29\.[0-9A-Za-z_-]{20,}|dckr_(?:pat|oat)_[A-Za-z0-9_-]{16,}|gls[ac]_[A-Za-z0-9_]{20,}|glc_[A-Za-z0-9+/=_-]{20,}"
            r"|pypi-[A-Za-z0-9_-]{40,}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|hv[sbr]\.[A-Za-z0-9_-]{20,})"),
        MASK,
    ),
    (_rule(("xox",), r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
    (_rule(("AIza",), r"\bAIza[0-9A-Za-z_-]{35}\b"), MASK),
    (_rule(("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}"), MASK),
    (_rule(("eyJ",), r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), MASK),
    # URL credentials, with or without a user (`redis://:PW@host`); a password may itself hold an
    # "@", so mask up to the last one of the host part
    (_rule(("://",), r"(?i)(://[^/\s:@]*+:)[^\s/]*(@)"), r"\1" + MASK + r"\2"),
    # a token as the whole user part (`https://TOKEN@host`): long, with letters and digits
    (
        _rule(("://",), r"(://)(?=[A-Za-z0-9_.~%+-]*?[0-9])(?=[A-Za-z0-9_.~%+-]*?[A-Za-z])[A-Za-z0-9_.~%+-]{20,}(@)"),
        r"\1" + MASK + r"\2",
    ),
    (_rule(("k_live_", "k_test_"), r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}"), MASK),
    (_rule(("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"), MASK),
    # signed URLs: S3 presigned (`X-Amz-Signature=`), Azure SAS (`sig=`)
    (_rule(("signature", "sig="), r"(?i)([?&](?:x-amz-signature|x-amz-credential|signature|sig)=)[^&\s'\"\\#]+"), r"\1" + MASK),
    # `aws configure set aws_secret_access_key X`, and `aws_secret_access_key = X` (~/.aws/credentials)
    (_rule(("aws_secret_access_key",), r"(?i)(\baws_secret_access_key(?:\s*=\s*|\s+))[^\s'\"\\]+"), r"\1" + MASK),
    (
        _rule(("hooks.slack.com", "discord"), r"(?i)\bhooks\.slack\.com/services/\S+|\bdiscord(?:app)?\.com/api/webhooks/\S+"),
        MASK,
    ),
    (_rule(("cookie",), r"(?i)(\b(?:set-)?cookie\s*[:=]\s*)[^\n'\"\\]+"), r"\1" + MASK),
    # passwords given as a flag: mysql -pSECRET, sshpass -p SECRET, redis-cli -a SECRET, docker login -p,
    # az login -p (a user's password or a service principal's secret)
    (
        _rule(
            ("mysql", "mariadb"),
            r"(?i)(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?\s-p)(?=[^\s-])('[^']*'?|\"[^\"]*\"?|\S+)",
        ),
        r"\1" + MASK,
    ),
    (
        _rule(("sshpass", "redis-cli", "login"),
            r"(?i)(\b(?:sshpass|redis-cli|(?:docker|podman|helm registry|az) login)\b[^\n|;&]{0,200}?\s-[pa]\s*)(?=[^\s-])"
            r"('[^']*'?|\"[^\"]*\"?|\S+)"
        ),
        r"\1" + MASK,
    ),
    (
        _rule(("pass", "pwd", "secret", "token", "key", "credential", "auth"),
            # a whole name (matched possessively, so a long dotted run costs linear time) that
            # contains a key word
            r"(?i)(?<![A-Z0-9_.-])((?=[A-Z0-9_.-]*?(?:passw(?:or)?d|passwd|passphrase|pwd|pass(?![a-z])|secret|token|"
            # `key` as a word in any case style (`key_id`, `KeyVault`, `accountKeyName`), or ending
            # the name (`AccountKey`, `masterkey`, `SIGNINGKEY`): not `keyboard`, `KEYWORDS`
            r"(?<![a-z])key(?![a-z])|(?-i:Key(?![a-z]))|keys?(?![A-Z0-9_.-])|credentials?|auth))"
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
    # any flag whose name has a secret word as a part: --auth-token, --client-secret, --pass, --key
    (
        _rule(("--",),
            r"(?i)((?<![\w-])--(?=(?:[a-z0-9]+-)*?(?:pass(?:word|wd|phrase)?|pwd|token|secret|(?:api-?)?key|auth"
            r"|credentials?|bearer)(?:-[a-z0-9-]*)?(?:\\?[\"'])?(?:=|\s))"
            # the name, a quote that may close it (`'--password' 'x'`), and `=` or blanks
            r"[a-z0-9-]++(?:\\?[\"'])?(?:=|\s+))(?!-)(" + _VALUE + ")"),
        r"\1" + MASK,
    ),
    # a secret flag and its value as items of a list: `["mysql", "--password", "X"]`, MCP `args`
    (
        _rule(("--",),
            r"(?i)(\"--?(?=[a-z0-9-]*?(?:pass|pwd|token|secret|key|auth|credential))[a-z0-9-]+\"\s*,\s*)(\"[^\"]*\"?)"),
        r"\1" + MASK,
    ),
    # positional passwords: htpasswd -b FILE USER PW (the rest of the command), ssh-keygen -N/-P PW,
    # echo PW | sudo -S (or chpasswd), sudo -S <<< PW
    (_rule(("htpasswd",), r"(?i)(\bhtpasswd\b[^\n|;&]{0,200}?\s-[a-z]*b[a-z]*[ \t])(?:[ \t]+|" + _VALUE + ")+"), r"\1" + MASK),
    (
        _rule(("ssh-keygen",), r"(\bssh-keygen\b[^\n|;&]{0,200}?\s-[NP]\s*)(" + _VALUE + ")"),
        r"\1" + MASK,
    ),
    (
        _rule(("sudo", "chpasswd", "passwd", "password-stdin"),
            r"(\b(?:echo|printf)\b)[^\n|]{1,200}?(\s*\|\s*(?:sudo\b[^\n|;&]{0,100}?\s(?:-[a-zA-Z]*S|--stdin)\b|chpasswd\b"
            r"|passwd\b[^\n|;&]{0,100}?--stdin|[\w./-]+\b[^\n|;&]{0,100}?--password-stdin\b))"),
        r"\1 " + MASK + r"\2",
    ),
    (_rule(("<<<",), r"(\bsudo\b[^\n|;&]{0,100}?\s(?:-[a-zA-Z]*S|--stdin)\b[^\n|;&]{0,100}?<<<\s*)(\S+)"), r"\1" + MASK),
    # positional passwords: a `.netrc` line (`machine H login U password X`), `password X` as a
    # config line says it (no `=`), Redis' `requirepass X` / `masterauth X`; prose (`password is
    # wrong`) is left alone
    (
        _rule(("pass", "masterauth"),
            r"(?i)(\b(?:password|passwd|passphrase|requirepass|masterauth)[ \t]+)(?!(?:is|was|were|are|be|been|for|and|or|"
            r"to|the|a|an|of|in|on|at|by|not|no|must|should|will|can|cannot|may|required|incorrect|invalid|wrong|field|"
            r"prompt|reset|changed|change|expired|manager|policy|hash|file|length|authentication|protected|from|with|"
            r"again|please|here|set|if|that|this|you|your|please|login|entry|too|has|have|protection|[:=])"
            r"(?![A-Za-z0-9]))(" + _VALUE + ")"),
        r"\1" + MASK,
    ),
    # a compound secret name and its value after blanks (`api_token X`, `AccessKey X`,
    # `client-secret X`), as config files and CLIs write them; a lone word (`token`) is prose
    (
        _rule(("pass", "secret", "token", "key", "credential", "Pass", "Secret", "Token", "Key", "Credential", "PASS",
               "SECRET", "TOKEN", "KEY", "CREDENTIAL"),
            r"((?<![\w./-])(?:[A-Za-z0-9]+[_-])+(?i:token|secret|key|password|passwd|credentials?)"
            r"|(?<![\w./-])[A-Za-z0-9]*[a-z0-9](?:Token|Secret|Key|Password|Passwd|Credentials?)|(?<![\w./-])[A-Z][a-z]+"
            r"(?:Token|Secret|Key|Password))[ \t]+(?![-/=:.]|(?:is|was|for|and|or|to|the|a|an|of|in|on|not|from|with)(?![\w]))"
            r"(" + _VALUE + ")"),
        r"\1 " + MASK,
    ),
    # an XML element named for a secret: `<password>X</password>`, `<ApiKey>X</ApiKey>`
    (
        _rule(("pass", "secret", "token", "key", "pwd"),
            r"(?i)(<(?:[\w.-]*?(?:passw(?:or)?d|passphrase|pwd|secret|token|key))>)[^<\n]{1,512}(?=</)"),
        r"\1" + MASK,
    ),
    # `.pgpass` lines: `host:port:database:user:password`
    (
        _rule((":",), r"(?m)(?:^|(?<=[\"\s]))([^:\s#\"]+:(?:\d{1,5}|\*):[^:\s\"]+:[^:\s\"]+:)([^\s\"\\]+)(?=$|[\s\"\\])"),
        r"\1" + MASK,
    ),
    # archivers' passwords: `zip -P X`, `unzip -P X`, `7z a -pX`, `rar a -pX`
    (
        _rule(("zip", "7z", "rar"),
            r"(\b(?:zip|unzip|zipcloak|7z|7za|7zz|rar|unrar)\b[^\n|;&]{0,200}?\s-[Pp][ \t]*)(?=[^\s-])(" + _VALUE + ")"),
        r"\1" + MASK,
    ),
    # openssl's `-k X` / `-K HEX` (a password, a raw key) and its `pass:X` form
    (
        _rule(("openssl",), r"(\bopenssl\b[^\n|;&]{0,300}?\s-(?:k|K|kfile|pass|passin|passout|password)[ \t]+)(" + _VALUE + ")"),
        r"\1" + MASK,
    ),
    (_rule(("pass:",), r"(?<![A-Za-z0-9_-])(pass:)(" + _VALUE + ")"), r"\1" + MASK),
    # single-dash password flags: keytool's `-storepass X` / `-keypass X`, `-password X`,
    # ldapsearch's `-w X`
    (
        _rule(("pass",), r"(?i)((?<![\w-])-(?:[a-z]*pass(?:word|wd|phrase)?|pwd)[ \t]+)(?!-)(" + _VALUE + ")"),
        r"\1" + MASK,
    ),
    (_rule(("ldap",), r"(\bldap\w*\b[^\n|;&]{0,200}?\s-w[ \t]*)(?=[^\s-])(" + _VALUE + ")"), r"\1" + MASK),
    # Samba's `-U user%password` (smbclient, rpcclient, net, mount.cifs)
    (
        _rule(("%",), r"((?<![\w-])(?:-U[ \t]*|--user(?:name)?[= ])(?:\\?['\"])?[^\s%'\"]{1,256}%)(" + _VALUE + ")"),
        r"\1" + MASK,
    ),
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
        text, shadow, changed = _apply(re.compile(rule.pattern, rule.flags), replacement, text, shadow)
        if changed:
            lowered = None
    if lowered is None:
        lowered = text.lower()
    for keywords, pattern, group in _data_rules():
        if any(k in lowered for k in keywords):
            text, shadow, changed = _apply(re.compile(pattern), group, text, shadow)
            if changed:
                lowered = text.lower()
    return text


def _apply(pattern: re.Pattern[str], replacement: str | int, text: str, shadow: str | None) -> tuple[str, str | None, bool]:
    """Replace each match of `pattern` (found in `shadow` when there is one) in `text` and
    `shadow` alike. `replacement` is a template (`\\1` stands for the group as `text` has it,
    escapes and all), or the number of the group to mask (0: the whole match)."""
    source = text if shadow is None else shadow
    out_text: list[str] = []
    out_shadow: list[str] = []
    last = 0
    for match in pattern.finditer(source):
        start, end = match.span()
        if isinstance(replacement, int):
            g_start, g_end = match.span(replacement)
            if g_start < 0:
                continue
            masked = text[start:g_start] + MASK + text[g_end:end]
        else:
            masked = _expand(replacement, match, text)
        out_text += (text[last:start], masked)
        if shadow is not None:
            out_shadow += (shadow[last:start], masked)
        last = end
    if not out_text:
        return text, shadow, False
    text = "".join(out_text) + text[last:]
    if shadow is not None:
        shadow = "".join(out_shadow) + shadow[last:]
    return text, shadow, True


def _expand(template: str, match: re.Match[str], text: str) -> str:
    """`match.expand(template)` for the templates above (`\\1`, `\\2` and literal text), but
    with the groups as `text` has them: a match found in the shadow has the same span there."""
    head, *refs = template.split("\\")
    out = [head]
    for ref in refs:
        start, end = match.span(int(ref[0]))
        out += (text[start:end] if start >= 0 else "", ref[1:])
    return "".join(out)


_DATA: list[tuple[tuple[str, ...], str, int]] | None = None


def _data_rules() -> list[tuple[tuple[str, ...], str, int]]:
    """The gitleaks-derived rules: (lower-case keywords, pattern, group to mask), loaded once."""
    global _DATA
    if _DATA is None:
        from .secret_rules import RULES

        _DATA = list(RULES)
    return _DATA


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
