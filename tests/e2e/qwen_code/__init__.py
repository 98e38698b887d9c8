"""End-to-end tests through the real Qwen Code CLI."""
