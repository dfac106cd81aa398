// The Relate browser console: login, Cypher editor, table and graph views, schema, history, and the
// search playground. It talks only to the HTTP Query API (typed JSON) of the server that serves it.
"use strict";
(function () {
  const DB = "neo4j";
  const TYPED = "application/vnd.neo4j.query";
  const HISTORY_KEY = "relate.history";
  const $ = (id) => document.getElementById(id);
  let token = sessionStorage.getItem("relate.token");
  let graph = null;
  let lastResult = null;

  // -- HTTP -----------------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, errors) {
      super(errors.map((e) => `${e.code}: ${e.message}`).join("\n"));
      this.status = status;
      this.errors = errors;
    }
  }

  async function post(path, body, headers) {
    const response = await fetch(path, {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json", Accept: TYPED,
                               Authorization: "Bearer " + token }, headers || {}),
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({ errors: [{ code: "Http", message: response.statusText }] }));
    if (!response.ok || data.errors) {
      if (response.status === 401) showLogin("Your session ended; log in again.");
      throw new ApiError(response.status, data.errors || []);
    }
    return data;
  }

  async function cypher(statement, parameters) {
    const started = performance.now();
    const data = await post(`/db/${DB}/query/v2`, { statement, parameters: parameters || {} });
    data.browserMs = performance.now() - started;
    return data;
  }

  // -- typed JSON -----------------------------------------------------------------------------------

  function plain(value) {
    const v = value._value;
    switch (value.$type) {
      case "Null": return null;
      case "Integer": return Number(v) <= Number.MAX_SAFE_INTEGER && Number(v) >= -Number.MAX_SAFE_INTEGER ? Number(v) : v;
      case "Float": return Number(v);
      case "List": return v.map(plain);
      case "Map": return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
      case "Node": return { id: v._element_id, labels: v._labels, properties: plain({ $type: "Map", _value: v._properties }), kind: "node" };
      case "Relationship": return { id: v._element_id, type: v._type, start: v._start_node_element_id,
                                    end: v._end_node_element_id, kind: "relationship",
                                    properties: plain({ $type: "Map", _value: v._properties }) };
      case "Path": return { kind: "path", items: v.map(plain) };
      case "Vector": return v.coordinates.map(Number);
      default: return v;
    }
  }

  function text(value) {
    if (value === null || value === undefined) return "null";
    if (Array.isArray(value)) return "[" + value.map(text).join(", ") + "]";
    if (typeof value === "object") {
      if (value.kind === "node") return "(:" + value.labels.join(":") + " " + text(value.properties) + ")";
      if (value.kind === "relationship") return "[:" + value.type + " " + text(value.properties) + "]";
      if (value.kind === "path") return value.items.map(text).join("-");
      return "{" + Object.entries(value).map(([k, v]) => k + ": " + text(v)).join(", ") + "}";
    }
    if (typeof value === "number" && !Number.isInteger(value)) return String(Math.round(value * 1e6) / 1e6);
    return String(value);
  }

  function entities(rows) {
    const nodes = new Map(), rels = new Map();
    const visit = (v) => {
      if (!v || typeof v !== "object") return;
      if (Array.isArray(v)) return v.forEach(visit);
      if (v.kind === "node") nodes.set(v.id, v);
      else if (v.kind === "relationship") rels.set(v.id, v);
      else if (v.kind === "path") v.items.forEach(visit);
      else Object.values(v).forEach(visit);
    };
    rows.forEach(visit);
    return { nodes: [...nodes.values()], rels: [...rels.values()] };
  }

  // -- login ----------------------------------------------------------------------------------------

  function showLogin(message) {
    token = null;
    sessionStorage.removeItem("relate.token");
    $("login").hidden = false;
    $("app").hidden = true;
    $("tabs").hidden = true;
    $("logout").hidden = true;
    $("who").textContent = "";
    $("login-error").textContent = message || "";
  }

  async function showApp(user) {
    $("login").hidden = true;
    $("app").hidden = false;
    $("tabs").hidden = false;
    $("logout").hidden = false;
    $("who").textContent = user ? "as " + user : "";
    renderHistory();
    await loadSchema();
  }

  $("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const basic = btoa(unescape(encodeURIComponent($("user").value + ":" + $("password").value)));
    const response = await fetch("/login", { method: "POST", headers: { Authorization: "Basic " + basic } });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      $("login-error").textContent = (data.errors || [{ message: "Login failed" }])[0].message;
      return;
    }
    token = data.token;
    sessionStorage.setItem("relate.token", token);
    sessionStorage.setItem("relate.user", data.user);
    await showApp(data.user);
  });

  $("logout").addEventListener("click", () => showLogin(""));

  // -- editor, history ------------------------------------------------------------------------------

  const editor = $("editor");
  function syncHighlight() {
    $("highlight").innerHTML = window.CypherHighlight.highlight(editor.value);
    $("highlight").scrollTop = editor.scrollTop;
  }
  editor.addEventListener("input", syncHighlight);
  editor.addEventListener("scroll", () => { $("highlight").scrollTop = editor.scrollTop; });
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); runQuery(); }
  });

  function history() {
    try { return JSON.parse(localStorage.getItem(HISTORY_KEY) || "[]"); } catch (e) { return []; }
  }

  function remember(statement) {
    const items = [statement, ...history().filter((s) => s !== statement)].slice(0, 50);
    localStorage.setItem(HISTORY_KEY, JSON.stringify(items));
    renderHistory();
  }

  function renderHistory() {
    const list = $("history");
    list.innerHTML = "";
    for (const statement of history()) {
      const li = document.createElement("li");
      li.textContent = statement.replace(/\s+/g, " ");
      li.title = statement;
      li.addEventListener("click", () => { editor.value = statement; syncHighlight(); });
      list.appendChild(li);
    }
  }

  // -- running statements ---------------------------------------------------------------------------

  async function runQuery() {
    const statement = editor.value.trim();
    if (!statement) return;
    let params;
    try { params = JSON.parse($("params").value || "{}"); } catch (e) {
      $("status").innerHTML = '<span class="error">Parameters are not valid JSON: ' + e.message + "</span>";
      return;
    }
    $("status").textContent = "Running…";
    remember(statement);
    try {
      const data = await cypher(statement, params);
      const rows = data.data.values.map((row) => row.map(plain));
      lastResult = { fields: data.data.fields, rows };
      const c = data.counters || {};
      const changes = Object.entries(c).filter(([k, v]) => typeof v === "number" && v).map(([k, v]) => `${k} ${v}`);
      $("status").textContent = `${rows.length} row${rows.length === 1 ? "" : "s"} in ${data.browserMs.toFixed(1)} ms` +
        (changes.length ? " · " + changes.join(", ") : "");
      renderTable(lastResult);
      graph.clear();
      const found = entities(rows);
      graph.add(found.nodes, found.rels);
      if (changes.length) loadSchema();
    } catch (error) {
      $("status").innerHTML = "";
      const pre = document.createElement("pre");
      pre.className = "error";
      pre.textContent = error.message;
      $("status").appendChild(pre);
    }
  }
  $("run").addEventListener("click", runQuery);

  function renderTable(result) {
    const table = document.createElement("table");
    table.className = "grid";
    table.id = "result-table";
    const head = table.createTHead().insertRow();
    for (const f of result.fields) { const th = document.createElement("th"); th.textContent = f; head.appendChild(th); }
    const body = table.createTBody();
    for (const row of result.rows) {
      const tr = body.insertRow();
      for (const value of row) tr.insertCell().textContent = text(value);
    }
    $("table-view").innerHTML = "";
    $("table-view").appendChild(table);
  }

  async function expand(node) {
    try {
      const data = await cypher("MATCH (n)-[r]-(m) WHERE elementId(n) = $id RETURN n, r, m LIMIT 50", { id: node.id });
      const found = entities(data.data.values.map((row) => row.map(plain)));
      graph.add(found.nodes, found.rels);
    } catch (error) { $("status").textContent = error.message; }
  }

  // -- views ----------------------------------------------------------------------------------------

  function switchView(name) {
    $("view-table").classList.toggle("active", name === "table");
    $("view-graph").classList.toggle("active", name === "graph");
    $("table-view").hidden = name !== "table";
    $("graph-view").hidden = name !== "graph";
    if (name === "graph") graph.simulate(120);
  }
  $("view-table").addEventListener("click", () => switchView("table"));
  $("view-graph").addEventListener("click", () => switchView("graph"));

  function switchTab(name) {
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
    $("query-view").hidden = name !== "query";
    $("search-view").hidden = name !== "search";
  }
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => switchTab(b.dataset.tab));

  // -- schema ---------------------------------------------------------------------------------------

  let indexes = [];
  async function loadSchema() {
    const box = $("schema");
    try {
      const [labels, types, idx, cons] = await Promise.all([
        cypher("CALL db.labels() YIELD label RETURN label ORDER BY label"),
        cypher("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType"),
        cypher("SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state " +
               "RETURN name, type, entityType, labelsOrTypes, properties, state ORDER BY name"),
        cypher("SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties RETURN name, type, labelsOrTypes, properties ORDER BY name"),
      ]);
      indexes = idx.data.values.map((row) => row.map(plain)).map(([name, type, entity, on, props, state]) =>
        ({ name, type, entity, on, props, state }));
      box.innerHTML = "";
      const group = (title, items, cls, click) => {
        const div = document.createElement("div");
        div.className = "group";
        div.innerHTML = `<b>${title} (${items.length})</b>`;
        for (const item of items) {
          const chip = document.createElement("span");
          chip.className = "chip " + cls;
          chip.textContent = item.text;
          chip.title = item.title || item.text;
          if (click) chip.addEventListener("click", () => click(item));
          div.appendChild(chip);
        }
        box.appendChild(div);
      };
      const setQuery = (q) => { editor.value = q; syncHighlight(); switchTab("query"); };
      group("Labels", labels.data.values.map((r) => ({ text: plain(r[0]) })), "",
            (i) => setQuery(`MATCH (n:\`${i.text}\`) RETURN n LIMIT 25`));
      group("Relationship types", types.data.values.map((r) => ({ text: plain(r[0]) })), "rel",
            (i) => setQuery(`MATCH p = ()-[:\`${i.text}\`]->() RETURN p LIMIT 25`));
      group("Indexes", indexes.map((i) => ({ text: i.name, title: `${i.type} on ${(i.on || []).join(",")}(${(i.props || []).join(",")}) ${i.state}` })), "idx");
      group("Constraints", cons.data.values.map((r) => r.map(plain)).map(([name, type, on, props]) =>
        ({ text: name, title: `${type} on ${(on || []).join(",")}(${(props || []).join(",")})` })), "con");
      fillIndexSelects();
    } catch (error) {
      box.textContent = error.message;
    }
  }
  $("schema-refresh").addEventListener("click", loadSchema);

  function fillIndexSelects() {
    for (const [id, type] of [["vector-index", "VECTOR"], ["fulltext-index", "FULLTEXT"]]) {
      const select = $(id);
      const current = select.value;
      select.innerHTML = "";
      for (const index of indexes.filter((i) => i.type === type && i.entity === "NODE")) {
        const option = document.createElement("option");
        option.value = index.name;
        option.textContent = `${index.name} (:${(index.on || []).join(":")})`;
        option.dataset.label = (index.on || [])[0] || "";
        select.appendChild(option);
      }
      if (current) select.value = current;
    }
  }

  // -- search playground ----------------------------------------------------------------------------

  function luceneText(question) {
    // The question as plain terms: Lucene operators and punctuation would change its meaning.
    return question.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, " ").replace(/\s+/g, " ").trim();
  }

  function serverMs(data) {
    // lastMs: the engine's milliseconds from the start of the statement to its last row.
    return Number((data.timings || {}).lastMs) || 0;
  }

  function renderLane(id, hits, extra) {
    const lane = $(id);
    lane.innerHTML = "";
    hits.forEach((hit, i) => {
      const div = document.createElement("div");
      div.className = "hit";
      const rank = hit.rank || i + 1;
      div.dataset.rank = String(rank);
      div.dataset.key = hit.key;
      const p = hit.node.properties || {};
      const label = p.id || p.name || hit.node.id;
      const body = String(p.text || p.title || p.name || "").slice(0, 90);
      div.innerHTML = '<span class="rank"></span><span><b class="key"></b> <span class="body"></span>' +
                      '<div class="sub"></div></span><span class="score"></span>';
      div.querySelector(".rank").textContent = "#" + rank;
      div.querySelector(".key").textContent = label;
      div.querySelector(".body").textContent = body;
      div.querySelector(".sub").textContent = extra ? extra(hit) : "";
      div.querySelector(".score").textContent = hit.score.toFixed(4);
      lane.appendChild(div);
    });
    if (!hits.length) lane.textContent = "no hits";
  }

  function hits(data) {
    return data.data.values.map((row) => {
      const [node, score] = row.map(plain);
      return { node, score, key: node.id };
    });
  }

  async function runSearch() {
    const question = $("question").value.trim();
    const vectorIndex = $("vector-index").value, fulltextIndex = $("fulltext-index").value;
    const k = Math.max(1, Math.min(100, parseInt($("k").value, 10) || 5));
    if (!question || !vectorIndex || !fulltextIndex) {
      $("search-status").textContent = "Type a question and pick a vector and a full-text index.";
      return;
    }
    const label = $("vector-index").selectedOptions[0].dataset.label.replace(/`/g, "``");
    const q = luceneText(question);
    const steps = [];
    $("search-status").textContent = "Searching…";
    showResults("search");
    try {
      let started = performance.now();
      const embedding = await post(`/db/${DB}/embed`, { text: question, model: "hash-384" });
      steps.push(["embed (hash-384)", performance.now() - started, null, embedding.vector.length + " dims"]);
      const v = embedding.vector;
      const [vector, fulltext, fused] = await Promise.all([
        cypher("CALL db.index.vector.queryNodes($index, $k, $v) YIELD node, score RETURN node, score",
               { index: vectorIndex, k, v }),
        cypher("CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score RETURN node, score LIMIT $k",
               { index: fulltextIndex, q, k }),
        cypher(`MATCH (n:\`${label}\`) SEARCH n IN (COMBINE (VECTOR INDEX \`${vectorIndex.replace(/`/g, "``")}\` FOR $v LIMIT $k, ` +
               `FULLTEXT INDEX \`${fulltextIndex.replace(/`/g, "``")}\` FOR $q LIMIT $k) USING RRF LIMIT $k) SCORE AS score ` +
               "RETURN n AS node, score ORDER BY score DESC", { v, q, k }),
      ]);
      const vHits = hits(vector), fHits = hits(fulltext), uHits = hits(fused);
      const vRank = new Map(vHits.map((h, i) => [h.key, i + 1])), fRank = new Map(fHits.map((h, i) => [h.key, i + 1]));
      renderLane("lane-vector", vHits);
      renderLane("lane-fulltext", fHits);
      renderLane("lane-fused", uHits, (h) => `vector #${vRank.get(h.key) || "–"} · full-text #${fRank.get(h.key) || "–"}`);
      steps.push(["vector search", vector.browserMs, serverMs(vector), vHits.length]);
      steps.push(["full-text search", fulltext.browserMs, serverMs(fulltext), fHits.length]);
      steps.push(["fusion (SEARCH … COMBINE USING RRF)", fused.browserMs, serverMs(fused), uHits.length]);
      // Per-lane diagnostics from the engine (db.retrieve) are shown here when a response carries them.
      for (const data of [vector, fulltext, fused]) {
        for (const d of data.diagnostics || []) steps.push([d.step, null, d.ms, d.hits]);
      }
      $("search-status").textContent = `question: "${question}" · full-text query: "${q}" · k = ${k}`;
    } catch (error) {
      $("search-status").textContent = error.message;
    }
    const body = $("diagnostics").tBodies[0];
    body.innerHTML = "";
    for (const [step, browser, server, count] of steps) {
      const tr = body.insertRow();
      tr.insertCell().textContent = step;
      tr.insertCell().textContent = browser == null ? "" : browser.toFixed(1);
      tr.insertCell().textContent = server == null ? "" : Number(server).toFixed(2);
      tr.insertCell().textContent = count == null ? "" : String(count);
    }
  }
  $("search-run").addEventListener("click", runSearch);

  function showResults(which) {
    // The playground shows one result at a time: the three search lists, or the graph retrieval.
    $("search-results").hidden = which !== "search";
    $("retrieval").hidden = which !== "retrieval";
  }

  async function runRetrieve() {
    // Graph retrieval: POST /db/{db}/retrieve runs db.retrieve (direct, expanded and evidence lanes,
    // fused) over the chunks of the chosen indexes; the engine's steps come back with the results.
    const question = $("question").value.trim();
    if (!question) { $("search-status").textContent = "Type a question."; return; }
    const k = Math.max(1, Math.min(100, parseInt($("k").value, 10) || 5));
    const options = { k };
    const vectorOption = $("vector-index").selectedOptions[0];
    if (vectorOption) { options.vectorIndex = vectorOption.value; options.chunkLabel = vectorOption.dataset.label || "Chunk"; }
    if ($("fulltext-index").value) options.fulltextIndex = $("fulltext-index").value;
    showResults("retrieval");
    $("search-status").textContent = "Retrieving…";
    for (const id of ["retrieval-results", "retrieval-answer", "retrieval-citations", "retrieval-degraded"]) $(id).innerHTML = "";
    $("retrieval-diagnostics").tBodies[0].innerHTML = "";
    const started = performance.now();
    let data;
    try {
      data = await post(`/db/${DB}/retrieve`, { question, options });
    } catch (error) {
      $("search-status").textContent = error.message;
      return;
    }
    const browserMs = performance.now() - started;
    const results = data.results.map((r) => Object.assign({}, r, { node: plain(r.node) }));
    renderLane("retrieval-results", results.map((r) => ({ node: r.node, score: r.score, rank: r.rank, key: r.node.id,
                                                           lanes: r.lanes, evidence: r.evidence })),
               (h) => h.lanes.join(" + ") + (h.evidence.length ? ` · ${h.evidence.length} fact${h.evidence.length === 1 ? "" : "s"}` : ""));
    const answer = $("retrieval-answer");
    answer.className = data.answer == null ? "none" : "";
    answer.textContent = data.answer == null
      ? "No answer synthesized (no AI provider configured, or nothing found)." : data.answer;
    for (const c of data.citations || []) {
      const li = document.createElement("li");
      const node = plain(c.node), p = (node && node.properties) || {};
      li.value = c.marker;
      li.textContent = `[${c.marker}] ${c.document || ""} ${p.id || (node && node.id) || ""}`.replace(/\s+/g, " ").trim();
      $("retrieval-citations").appendChild(li);
    }
    const body = $("retrieval-diagnostics").tBodies[0];
    for (const step of data.diagnostics.steps) {
      const tr = body.insertRow();
      tr.dataset.step = step.name;
      tr.insertCell().textContent = step.name;
      tr.insertCell().textContent = Number(step.ms).toFixed(2);
      const counts = Object.entries(step).filter(([key]) => key !== "name" && key !== "ms");
      tr.insertCell().textContent = counts.map(([key, value]) => `${key}: ${text(value)}`).join(" · ");
    }
    for (const d of data.diagnostics.degraded) {
      const li = document.createElement("li");
      li.textContent = `degraded ${d.step}: ${d.error} → ${d.fallback}`;
      $("retrieval-degraded").appendChild(li);
    }
    const engineMs = data.diagnostics.steps.reduce((sum, step) => sum + (Number(step.ms) || 0), 0);
    $("search-status").textContent = `db.retrieve: ${results.length} result${results.length === 1 ? "" : "s"} · ` +
      `${browserMs.toFixed(1)} ms in the browser, ${engineMs.toFixed(1)} ms in the engine's steps · k = ${k}`;
  }
  $("retrieve-run").addEventListener("click", runRetrieve);
  $("question").addEventListener("keydown", (e) => { if (e.key === "Enter") runSearch(); });

  // -- start ----------------------------------------------------------------------------------------

  graph = new window.GraphView($("graph"), expand);
  syncHighlight();
  if (token) showApp(sessionStorage.getItem("relate.user")); else showLogin("");
})();
