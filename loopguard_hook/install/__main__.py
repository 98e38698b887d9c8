"""`python -m loopguard_hook.install REPO_ROOT`: regenerate `hooks/` and `.claude-plugin/`."""

import os
import sys

from .shipped import write_config_files

if len(sys.argv) != 2 or not os.path.isfile(os.path.join(sys.argv[1], "pyproject.toml")):
    sys.exit(
        "usage: python -m loopguard_hook.install REPO_ROOT\n"
        "regenerates hooks/ and .claude-plugin/ in a loopguard-hook checkout (REPO_ROOT holds pyproject.toml)"
    )
for written_path in write_config_files(sys.argv[1]):
    print(f"wrote {written_path}")
