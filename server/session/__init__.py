"""The transport-neutral session core: states, transactions, streaming, cancellation.

A listener (Relate's wire protocol today, Bolt/PackStream later) decodes requests into
``relate.protocol.messages`` objects, hands them to ``SessionCore.handle`` and writes the replies the
core gives its ``ReplySink``.
"""
from .core import ReplySink, SessionCore

__all__ = ["SessionCore", "ReplySink"]
