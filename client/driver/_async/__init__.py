"""The driver's source of truth, written for asyncio; ``../_sync`` is generated from it."""
