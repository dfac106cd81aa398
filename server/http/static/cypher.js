// Cypher syntax highlighting for the console's editor: a tokenizer that wraps tokens in spans.
"use strict";
(function (global) {
  const KEYWORDS = new Set(("MATCH OPTIONAL WHERE RETURN WITH UNWIND AS CREATE MERGE SET DELETE DETACH REMOVE " +
    "ORDER BY ASC ASCENDING DESC DESCENDING SKIP LIMIT DISTINCT AND OR XOR NOT IN IS NULL TRUE FALSE CASE " +
    "WHEN THEN ELSE END CALL YIELD UNION ALL EXISTS COUNT ON FOR INDEX CONSTRAINT REQUIRE UNIQUE SHOW " +
    "INDEXES CONSTRAINTS DROP IF VECTOR FULLTEXT EACH OPTIONS SEARCH SCORE COMBINE USING WEIGHT RRF WRRF " +
    "EXPLAIN PROFILE FOREACH LOAD CSV FROM HEADERS TRANSACTIONS OF ROWS USE STARTS ENDS CONTAINS " +
    "ERROR CONTINUE BREAK FAIL RETRY REPORT STATUS DATABASES LET FILTER FINISH SHORTEST TYPED").split(" "));
  const TOKEN = /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?)|(\$[A-Za-z_][A-Za-z0-9_]*)|(\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)|(:`[^`]*`|:[A-Za-z_][A-Za-z0-9_]*)|(`[^`]*`?|[A-Za-z_][A-Za-z0-9_.]*)(\s*\()?|([\s\S])/g;

  function escape(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function highlight(text) {
    let out = "";
    TOKEN.lastIndex = 0;
    let m;
    while ((m = TOKEN.exec(text)) !== null) {
      if (m[1]) out += '<span class="tok-com">' + escape(m[1]) + "</span>";
      else if (m[2]) out += '<span class="tok-str">' + escape(m[2]) + "</span>";
      else if (m[3]) out += '<span class="tok-param">' + escape(m[3]) + "</span>";
      else if (m[4]) out += '<span class="tok-num">' + escape(m[4]) + "</span>";
      else if (m[5]) out += '<span class="tok-label">' + escape(m[5]) + "</span>";
      else if (m[6]) {
        const word = m[6];
        if (m[7]) out += '<span class="tok-fn">' + escape(word) + "</span>" + escape(m[7]);
        else if (KEYWORDS.has(word.toUpperCase())) out += '<span class="tok-kw">' + escape(word) + "</span>";
        else out += escape(word);
      } else out += escape(m[8]);
    }
    return out + "\n";   // a trailing newline keeps the last line's height in the overlay
  }

  global.CypherHighlight = { highlight, KEYWORDS };
})(window);
