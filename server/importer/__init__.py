"""``relate import``: the offline bulk loader (neo4j-admin style node and relationship files)."""
