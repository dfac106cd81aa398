"""The Cypher grammar (Cypher.g4) and its generated ANTLR parser; regenerate with build.py."""
