"""AI services of the engine: named text embedders and the LLM/embedding provider interface."""
