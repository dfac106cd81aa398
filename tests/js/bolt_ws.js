// The neo4j JavaScript driver's browser build (its WebSocket channel) against a Bolt address:
// prints one JSON line of what it saw. Usage: node --experimental-websocket bolt_ws.js URL USER PASSWORD
const neo4j = require('./node_modules/neo4j-driver/lib/browser/neo4j-web.js');

(async () => {
  const [url, user, password] = process.argv.slice(2);
  const driver = neo4j.driver(url, neo4j.auth.basic(user, password));
  const out = {};
  try {
    const info = await driver.getServerInfo();
    out.protocolVersion = info.protocolVersion;
    const res = await driver.executeQuery(
      'UNWIND range(1, 3) AS x CREATE (n:Js {x: x}) RETURN n.x AS x, labels(n) AS labels ORDER BY x');
    out.xs = res.records.map(r => r.get('x').toNumber());
    out.labels = res.records[0].get('labels');
    const session = driver.session();
    const tx = await session.beginTransaction();
    await tx.run('CREATE (:Js {x: 99})');
    await tx.rollback();
    const count = await session.run('MATCH (n:Js) RETURN count(n) AS c');
    out.count = count.records[0].get('c').toNumber();
    await session.close();
    try {
      await driver.executeQuery('RETURN 1 +');
    } catch (e) {
      out.errorCode = e.code;
    }
  } catch (e) {
    out.failure = `${e.code}: ${e.message}`;
  }
  await driver.close();
  console.log(JSON.stringify(out));
})();
