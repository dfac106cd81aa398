"""Durable graph storage: MVCC snapshots, a serialized writer, WAL with group commit, checkpoints.

See docs/architecture.md ("Storage API") for the contract.
"""
from .read_tx import ReadTx
from .store import GraphStore
from .write_tx import WriteTx

__all__ = ["GraphStore", "ReadTx", "WriteTx"]
