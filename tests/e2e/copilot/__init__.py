"""GitHub Copilot CLI 1.0.102 end to end."""
