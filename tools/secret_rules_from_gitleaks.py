"""Convert gitleaks' rule set (config/gitleaks.toml, MIT licence) into the data file the guard's
redaction reads, `loopguard_hook/core/secret_rules.py` (a module of literals: the core reads no file).

    python tools/secret_rules_from_gitleaks.py PATH/TO/gitleaks.toml COMMIT > loopguard_hook/core/secret_rules.py

Only the data is taken: each rule's id, keywords, regex and secret group. A rule is kept when
Python's `re` compiles its converted regex and it has keywords (the cheap prefilter); the generic
entropy-based rules are left out (the guard has its own assignment rule, and no entropy check),
and so are rules with an unbounded `.*`, which Python's backtracking `re` could take minutes over.

Go (RE2) syntax differences handled: `\\z` is `\\Z`; `[[:alnum:]]` is spelled out; an inline
`(?i)` after the start of the pattern (RE2 applies it to the rest of the group) makes the whole
pattern case-blind, which can only hide more. A token's end may be any backslash (gitleaks: `\\n` or
`\\r`), since in a call's canonical JSON it is as often followed by `\\"`.
"""

from __future__ import annotations

import re
import sys
import tomllib

SKIP = {"generic-api-key", "pkcs12-file"}


def convert(regex: str) -> str:
    regex = regex.replace("\\z", "\\Z").replace("[[:alnum:]]", "[A-Za-z0-9]")
    # a token ends at any backslash: in a call's canonical JSON it is followed by `\"` as often as by `\n`
    regex = regex.replace("|\\\\[nr]|", "|\\\\|")
    if re.search(r".\(\?i\)", regex):
        regex = "(?i)" + regex.replace("(?i)", "")
    return regex


def main() -> None:
    path, commit = sys.argv[1], sys.argv[2]
    with open(path, "rb") as fh:
        config = tomllib.load(fh)
    rules = []
    for rule in config["rules"]:
        if rule["id"] in SKIP or "regex" not in rule or not rule.get("keywords"):
            continue
        pattern = convert(rule["regex"])
        if re.search(r"\.[*+]", pattern):
            # an unbounded `.*` is linear in RE2 but can backtrack for minutes in Python's `re`
            print(f"skipped {rule['id']}: unbounded .* (the guard's own rules cover it)", file=sys.stderr)
            continue
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            print(f"skipped {rule['id']}: {exc}", file=sys.stderr)
            continue
        group = int(rule.get("secretGroup", 1 if compiled.groups else 0))
        keywords = sorted({k.lower() for k in rule["keywords"]})
        rules.append({"id": rule["id"], "keywords": keywords, "pattern": pattern, "group": group})
    out = sys.stdout
    out.write('"""Token shapes of known services, as data: gitleaks\' rule set converted for Python\'s `re`.\n\n')
    out.write(f"Source: gitleaks config/gitleaks.toml at commit {commit}, https://github.com/gitleaks/gitleaks.\n")
    out.write("MIT License, Copyright (c) 2019 Zachary Rice. The rules here are converted from it by\n")
    out.write("tools/secret_rules_from_gitleaks.py; the licence text is in LICENSES/gitleaks.txt.\n")
    out.write('Written by `tools/secret_rules_from_gitleaks.py`; edit that tool, not this file.\n"""\n\n')
    out.write("#: (lower-case keywords, pattern, group to mask), one per rule; `redact._data_rules` reads them.\n")
    out.write("RULES: tuple[tuple[tuple[str, ...], str, int], ...] = (\n")
    for rule in rules:
        out.write(f"    ({tuple(rule['keywords'])!r}, {rule['pattern']!r}, {rule['group']}),  # {rule['id']}\n")
    out.write(")\n")


if __name__ == "__main__":
    main()
