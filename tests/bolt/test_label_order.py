"""Labels cross the wire in the database's label order (creation order, as Neo4j's): labels(n) and the
node structure's label list, over Bolt (the official driver) and Relate's own protocol."""
from __future__ import annotations

import relate

from .conftest import AUTH


def test_labels_keep_creation_order_over_bolt_and_relate(server, driver):
    with driver.session() as session:
        session.run("MATCH (n:LoWidget) DETACH DELETE n").consume()
        record = session.run("CREATE (n:LoWidget:LoBig:LoAlpha) RETURN labels(n) AS l, n").single()
        assert record["l"] == ["LoWidget", "LoBig", "LoAlpha"]
        assert record["n"].labels == {"LoWidget", "LoBig", "LoAlpha"}
    with relate.connect(server.url, auth=AUTH) as db:
        row = db.execute("MATCH (n:LoWidget) RETURN labels(n) AS l, n").fetchone()
        assert row["l"] == ["LoWidget", "LoBig", "LoAlpha"]
        assert list(row["n"].labels) == ["LoWidget", "LoBig", "LoAlpha"]
