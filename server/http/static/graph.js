// The console's graph picture: nodes and relationships in SVG, laid out by a small force simulation.
"use strict";
(function (global) {
  const SVG = "http://www.w3.org/2000/svg";
  const PALETTE = ["#60a5fa", "#f472b6", "#34d399", "#fbbf24", "#a78bfa", "#f87171", "#22d3ee", "#a3e635"];

  function el(name, attrs) {
    const node = document.createElementNS(SVG, name);
    for (const k in attrs) node.setAttribute(k, attrs[k]);
    return node;
  }

  class GraphView {
    constructor(svg, onExpand) {
      this.svg = svg;
      this.onExpand = onExpand;
      this.nodes = new Map();     // elementId -> {id, labels, properties, x, y, vx, vy}
      this.rels = new Map();      // elementId -> {id, type, start, end, properties}
      this.colors = new Map();
      this.frame = null;
    }

    clear() { this.nodes.clear(); this.rels.clear(); this.render(); }

    color(label) {
      if (!this.colors.has(label)) this.colors.set(label, PALETTE[this.colors.size % PALETTE.length]);
      return this.colors.get(label);
    }

    add(nodes, rels) {
      const w = this.svg.clientWidth || 800, h = this.svg.clientHeight || 520;
      for (const n of nodes) {
        if (!this.nodes.has(n.id)) {
          this.nodes.set(n.id, Object.assign({}, n, {
            x: w / 2 + (Math.random() - 0.5) * w * 0.6, y: h / 2 + (Math.random() - 0.5) * h * 0.6, vx: 0, vy: 0 }));
        }
      }
      for (const r of rels) {
        if (this.nodes.has(r.start) && this.nodes.has(r.end)) this.rels.set(r.id, r);
      }
      this.render();
      this.simulate(220);
    }

    caption(n) {
      const p = n.properties || {};
      for (const key of ["name", "title", "id", "text"]) {
        if (p[key] !== undefined && p[key] !== null) {
          const s = String(p[key]);
          return s.length > 18 ? s.slice(0, 17) + "…" : s;
        }
      }
      return n.labels[0] || n.id;
    }

    simulate(steps) {
      cancelAnimationFrame(this.frame);
      const nodes = [...this.nodes.values()], rels = [...this.rels.values()];
      const w = this.svg.clientWidth || 800, h = this.svg.clientHeight || 520;
      let left = steps;
      const tick = () => {
        for (let i = 0; i < nodes.length; i++) {
          for (let j = i + 1; j < nodes.length; j++) {
            const a = nodes[i], b = nodes[j];
            let dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy + 0.01;
            const f = 900 / d2;
            const d = Math.sqrt(d2);
            dx /= d; dy /= d;
            a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
          }
        }
        for (const r of rels) {
          const a = this.nodes.get(r.start), b = this.nodes.get(r.end);
          const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
          const f = (d - 110) * 0.02;
          a.vx += dx / d * f; a.vy += dy / d * f; b.vx -= dx / d * f; b.vy -= dy / d * f;
        }
        for (const n of nodes) {
          if (n.fixed) { n.vx = n.vy = 0; continue; }
          n.vx += (w / 2 - n.x) * 0.002; n.vy += (h / 2 - n.y) * 0.002;
          n.x = Math.max(24, Math.min(w - 24, n.x + Math.max(-20, Math.min(20, n.vx))));
          n.y = Math.max(24, Math.min(h - 24, n.y + Math.max(-20, Math.min(20, n.vy))));
          n.vx *= 0.6; n.vy *= 0.6;
        }
        this.place();
        if (--left > 0) this.frame = requestAnimationFrame(tick);
      };
      tick();
    }

    render() {
      const svg = this.svg;
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      const defs = el("defs", {});
      const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "22", refY: "5", markerWidth: "7",
                                    markerHeight: "7", orient: "auto-start-reverse" });
      marker.appendChild(el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#9ca3af" }));
      defs.appendChild(marker);
      svg.appendChild(defs);
      this.linkEls = new Map();
      this.nodeEls = new Map();
      for (const r of this.rels.values()) {
        const g = el("g", { class: "link", "data-type": r.type });
        const line = el("path", { "marker-end": "url(#arrow)", fill: "none" });
        const text = el("text", {});
        text.textContent = r.type;
        g.appendChild(line); g.appendChild(text);
        svg.appendChild(g);
        this.linkEls.set(r.id, { line, text });
      }
      for (const n of this.nodes.values()) {
        const label = n.labels[0] || "";
        const g = el("g", { class: "node", "data-id": n.id, "data-labels": n.labels.join(",") });
        const circle = el("circle", { r: "18", fill: this.color(label) });
        const title = el("title", {});
        title.textContent = ":" + n.labels.join(":") + " " + JSON.stringify(n.properties);
        const text = el("text", { dy: "32" });
        text.textContent = this.caption(n);
        const badge = el("text", { dy: "4", class: "label" });
        badge.textContent = label;
        g.appendChild(circle); g.appendChild(title); g.appendChild(badge); g.appendChild(text);
        svg.appendChild(g);
        this.nodeEls.set(n.id, g);
        this.drag(g, n);
        g.addEventListener("dblclick", () => this.onExpand && this.onExpand(n));
      }
      this.place();
    }

    place() {
      // Relationships between the same two nodes bend apart, so each stays visible with its type.
      const pairs = new Map();
      for (const r of this.rels.values()) {
        const key = [r.start, r.end].sort().join("|");
        if (!pairs.has(key)) pairs.set(key, []);
        pairs.get(key).push(r.id);
      }
      for (const [id, els] of this.linkEls || []) {
        const r = this.rels.get(id), a = this.nodes.get(r.start), b = this.nodes.get(r.end);
        const group = pairs.get([r.start, r.end].sort().join("|"));
        const sign = r.start < r.end ? 1 : -1;
        const bend = (group.indexOf(id) - (group.length - 1) / 2) * 36 * sign;
        const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
        const cx = (a.x + b.x) / 2 - dy / d * bend, cy = (a.y + b.y) / 2 + dx / d * bend;
        els.line.setAttribute("d", `M ${a.x} ${a.y} Q ${cx} ${cy} ${b.x} ${b.y}`);
        els.text.setAttribute("x", (a.x + 2 * cx + b.x) / 4); els.text.setAttribute("y", (a.y + 2 * cy + b.y) / 4 - 3);
      }
      for (const [id, g] of this.nodeEls || []) {
        const n = this.nodes.get(id);
        g.setAttribute("transform", `translate(${n.x},${n.y})`);
      }
    }

    drag(g, n) {
      g.addEventListener("mousedown", (event) => {
        event.preventDefault();
        const box = this.svg.getBoundingClientRect();
        n.fixed = true;
        const move = (e) => { n.x = e.clientX - box.left; n.y = e.clientY - box.top; this.place(); };
        const up = () => { n.fixed = false; window.removeEventListener("mousemove", move);
                           window.removeEventListener("mouseup", up); };
        window.addEventListener("mousemove", move);
        window.addEventListener("mouseup", up);
      });
    }
  }

  global.GraphView = GraphView;
})(window);
