"""Model access: the one factory for every LLM call, and the built-in offline model."""
