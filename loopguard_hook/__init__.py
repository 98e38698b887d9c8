"""loopguard-hook: a repeat-call loop guard for Claude Code and Codex hooks."""

__version__ = "0.1.0"
