"""``relate``: the interactive Cypher shell and script runner (prompt_toolkit + rich)."""
