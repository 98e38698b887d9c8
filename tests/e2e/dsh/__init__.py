"""End-to-end tests through the real DeepSeek Harness and its two hook bridges."""
