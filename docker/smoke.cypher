// Smoke test for a freshly started server (the compose "smoke" job, or any CI pipeline):
// write a little graph, read it back, check a transaction, clean up. Safe to run repeatedly.
// relate relate://relate:7688 -u neo4j -f /scripts/smoke.cypher   (password from RELATE_PASSWORD)

CREATE CONSTRAINT smoke_id IF NOT EXISTS FOR (s:Smoke) REQUIRE s.id IS UNIQUE;

MATCH (s:Smoke) DETACH DELETE s;

UNWIND range(1, 3) AS i
CREATE (:Smoke {id: i, name: 'step ' + i});

MATCH (a:Smoke {id: 1}), (b:Smoke {id: 2}), (c:Smoke {id: 3})
CREATE (a)-[:NEXT]->(b), (b)-[:NEXT]->(c);

:param first => 1
MATCH p = (:Smoke {id: $first})-[:NEXT*]->(last:Smoke)
RETURN last.name AS reached, length(p) AS hops
ORDER BY hops;

// A rolled-back transaction leaves nothing behind.
:begin
CREATE (:Smoke {id: 99});
:rollback
MATCH (s:Smoke) RETURN count(s) AS smoke_nodes;

MATCH (s:Smoke) DETACH DELETE s;
