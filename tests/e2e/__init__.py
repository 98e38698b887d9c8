"""End-to-end tests: the real Claude Code and Codex CLIs, offline, against a scripted mock model."""
