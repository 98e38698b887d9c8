"""End-to-end tests through the real Gemini CLI."""
