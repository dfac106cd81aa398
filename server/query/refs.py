"""Graph entities as the engine passes them around: ids only, properties read through the transaction."""
from __future__ import annotations


class NodeRef:
    """A node by id, valid inside one transaction."""
    __slots__ = ("id",)

    def __init__(self, id: int):
        self.id = id

    def __eq__(self, other: object) -> bool:
        return type(other) is NodeRef and other.id == self.id

    def __hash__(self) -> int:
        return hash((NodeRef, self.id))

    def __repr__(self) -> str:
        return f"NodeRef({self.id})"


class RelRef:
    """A relationship by id, valid inside one transaction."""
    __slots__ = ("id",)

    def __init__(self, id: int):
        self.id = id

    def __eq__(self, other: object) -> bool:
        return type(other) is RelRef and other.id == self.id

    def __hash__(self) -> int:
        return hash((RelRef, self.id))

    def __repr__(self) -> str:
        return f"RelRef({self.id})"


class PathRef:
    """A path: nodes (n + 1) and relationships (n) in traversal order."""
    __slots__ = ("nodes", "rels")

    def __init__(self, nodes: tuple, rels: tuple):
        self.nodes = tuple(nodes)
        self.rels = tuple(rels)

    def __eq__(self, other: object) -> bool:
        return type(other) is PathRef and other.nodes == self.nodes and other.rels == self.rels

    def __hash__(self) -> int:
        return hash((PathRef, self.nodes, self.rels))

    def __len__(self) -> int:
        return len(self.rels)

    def __repr__(self) -> str:
        return f"PathRef({[n.id for n in self.nodes]}, {[r.id for r in self.rels]})"
