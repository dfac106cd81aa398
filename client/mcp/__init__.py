"""``relate-mcp``: a Model Context Protocol server over a Relate database (embedded path or relate://)."""
