"""Result lists are detached copies: a list of plain values (an embedding, tags) is copied at C speed,
a list holding nodes or relationships is materialized item by item. Changing a returned list never
changes the stored property, and nodes inside lists come back as nodes."""
import relate
from relate.protocol.values import Node, Relationship


def test_a_returned_list_is_a_copy_and_the_store_keeps_its_own():
    with relate.connect(":memory:") as db:
        db.execute("CREATE (:C {embedding: [0.5, 1.5, 2.5], tags: ['a', 'b']})")
        got = db.execute("MATCH (c:C) RETURN c.embedding AS e, c.tags AS t, properties(c) AS p").fetchone()
        got["e"].append(9.0)
        got["t"][0] = "z"
        got["p"]["embedding"].append(7.0)
        again = db.execute("MATCH (c:C) RETURN c.embedding AS e, c.tags AS t").fetchone()
        assert again["e"] == [0.5, 1.5, 2.5] and again["t"] == ["a", "b"]


def test_lists_of_entities_and_mixed_lists_are_materialized():
    with relate.connect(":memory:") as db:
        db.execute("CREATE (:A {i: 1})-[:R {w: 2}]->(:B {i: 3})")
        row = db.execute("MATCH (a:A)-[r:R]->(b:B) RETURN [a, b] AS nodes, [r, 1, 'x', null] AS mixed, "
                         "[[a], [1.0]] AS nested").fetchone()
        assert all(isinstance(n, Node) for n in row["nodes"]) and [n["i"] for n in row["nodes"]] == [1, 3]
        assert isinstance(row["mixed"][0], Relationship) and row["mixed"][1:] == [1, "x", None]
        assert isinstance(row["nested"][0][0], Node) and row["nested"][1] == [1.0]
