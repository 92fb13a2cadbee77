// graphkit report: the blast-radius view (graphkit/report/view.py builds the data). Plain SVG, no library,
// no network. Every input-derived string is set with textContent, never as HTML.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("gk-view-data").textContent);
  var root = document.querySelector(".gk-view");
  var ROW = 22, COLW = 285, TOP = 52, LEFT = 90, R = 6, LABEL = 36, OPEN_BELOW = 70;
  var CHAR = 6.3;  // average width of a label character at 11px, to cut labels to their column
  var nodes = data.nodes, kinds = data.kinds;
  var state = {focus: -1, open: new Set()};

  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function cut(text) { return text.length <= LABEL ? text : text.slice(0, LABEL - 1) + "\u2026"; }
  function visible(n) { return state.focus < 0 || n.src.indexOf(state.focus) >= 0; }

  // items: visible nodes outside collapsed groups, one item per collapsed group, a handle per open group
  function build() {
    var count = new Map(), items = [], itemOf = new Array(nodes.length).fill(-1), groups = new Map();
    nodes.forEach(function (n) { if (n.group && visible(n)) { count.set(n.group, (count.get(n.group) || 0) + 1); } });
    nodes.forEach(function (n, i) {
      if (!visible(n)) { return; }
      var g = n.group && count.get(n.group) >= 2 ? n.group : null;
      if (g && !state.open.has(g)) {
        var it = groups.get(g);
        if (!it) {
          it = {type: "group", key: g, kind: n.kind, col: n.col, members: [], crit: 0, chain: false, possible: true};
          groups.set(g, it); items.push(it);
        }
        it.members.push(i);
        if (n.crit === data.critical) { it.crit++; }
        if (n.flags.indexOf("chain") >= 0) { it.chain = true; }
        if (n.conf === "certain") { it.possible = false; }
        itemOf[i] = items.indexOf(it);
        return;
      }
      if (g && !groups.has(g)) {
        groups.set(g, true);
        items.push({type: "handle", key: g, kind: n.kind, col: n.col, count: count.get(g)});
      }
      items.push({type: "node", i: i, n: n, kind: n.kind, col: n.col, key: g || ""});
      itemOf[i] = items.length - 1;
    });
    var emap = new Map();
    data.edges.forEach(function (e) {
      var a = itemOf[e[0]], b = itemOf[e[1]];
      if (a < 0 || b < 0 || a === b) { return; }
      var k = a + "," + b, x = emap.get(k);
      if (!x) { x = {a: a, b: b, kinds: new Set(), possible: true, chain: false}; emap.set(k, x); }
      e[2].forEach(function (kind) { x.kinds.add(kind); });
      if (!e[3]) { x.possible = false; }
      if (e[4]) { x.chain = true; }
    });
    return {items: items, edges: Array.from(emap.values())};
  }

  function label(it) {
    if (it.type === "node") { return it.n.name; }
    return it.key;
  }

  // columns left to right; rows by kind, group, then barycentre of the predecessors already placed
  function layout(items, edges) {
    var cols = Array.from(new Set(items.map(function (it) { return it.col; }))).sort(function (a, b) { return a - b; });
    // columns share the width of the page (at least 190 px each: beyond, the view scrolls)
    COLW = Math.max(190, Math.min(300, Math.floor((root.clientWidth - LEFT - 8) / cols.length)));
    LABEL = Math.floor((COLW - 34) / CHAR);
    var preds = items.map(function () { return []; });
    edges.forEach(function (e) { preds[e.b].push(e.a); });
    var tallest = 0, lines = 1;
    cols.forEach(function (c) {
      var present = new Set(items.filter(function (it) { return it.col === c; }).map(function (it) { return it.kind; }));
      lines = Math.max(lines, present.size);
    });
    TOP = 30 + 14 * lines;
    cols.forEach(function (c, x) {
      var members = [];
      items.forEach(function (it, k) { if (it.col === c) { it.x = LEFT + x * COLW; members.push(k); } });
      members.forEach(function (k) {
        var ys = preds[k].map(function (p) { return items[p].y; }).filter(function (y) { return y !== undefined; });
        items[k].bary = ys.length ? ys.reduce(function (s, y) { return s + y; }, 0) / ys.length : 0;
      });
      members.sort(function (p, q) {
        var a = items[p], b = items[q];
        return (kinds[a.kind].rank - kinds[b.kind].rank) || ((a.key || "") < (b.key || "") ? -1 : (a.key || "") > (b.key || "") ? 1 : 0)
          || ((a.type === "handle" ? 0 : 1) - (b.type === "handle" ? 0 : 1)) || (a.bary - b.bary)
          || (label(a) < label(b) ? -1 : label(a) > label(b) ? 1 : 0);
      });
      members.forEach(function (k, r) { items[k].y = TOP + 16 + r * ROW; });
      tallest = Math.max(tallest, members.length);
    });
    return {cols: cols, width: LEFT + cols.length * COLW, height: TOP + 40 + tallest * ROW};
  }

  function star(cx, cy, r) {
    var pts = [];
    for (var k = 0; k < 10; k++) {
      var a = Math.PI / 2 + k * Math.PI / 5, rr = k % 2 ? r * 0.45 : r;
      pts.push((cx + rr * Math.cos(a)).toFixed(1) + "," + (cy - rr * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }

  function drawEdges(svg, items, edges) {
    var layer = el("g", {"class": "gk-edges"}, svg), pair = new Map();
    edges.forEach(function (e) { pair.set(e.a + "," + e.b, e); });
    edges = edges.filter(function (e) {  // a -> b and b -> a in one layer: one arc, an arrowhead at each end
      var back = pair.get(e.b + "," + e.a);
      if (!back || items[e.a].x !== items[e.b].x) { return true; }
      if (e.a < e.b) {
        e.both = true;
        back.kinds.forEach(function (k) { e.kinds.add(k); });
        e.possible = e.possible && back.possible;
        e.chain = e.chain || back.chain;
        return true;
      }
      return false;
    });
    var intra = edges.filter(function (e) { return items[e.a].x === items[e.b].x; });
    intra.sort(function (p, q) { return Math.abs(items[p.a].y - items[p.b].y) - Math.abs(items[q.a].y - items[q.b].y); });
    var bulge = new Map();
    intra.forEach(function (e, k) { bulge.set(e, 14 + 0.25 * Math.abs(items[e.a].y - items[e.b].y) + 7 * k); });
    edges.forEach(function (e) {
      var a = items[e.a], b = items[e.b], d;
      if (a.x === b.x) {  // one layer: an arc left of the column, its own bulge
        var w = Math.min(bulge.get(e), COLW * 0.45), x = a.x - R;
        d = "M" + x + "," + a.y + " C" + (x - w) + "," + a.y + " " + (x - w) + "," + b.y + " " + x + "," + b.y;
      } else {
        var x0 = a.x + (b.x > a.x ? R : -R), x1 = b.x + (b.x > a.x ? -R : R), dx = (x1 - x0) / 2;
        d = "M" + x0 + "," + a.y + " C" + (x0 + dx) + "," + a.y + " " + (x1 - dx) + "," + b.y + " " + x1 + "," + b.y;
      }
      var cls = "gk-edge" + (e.possible ? " gk-possible" : "") + (e.chain ? " gk-chain" : "") + (a.x === b.x ? " gk-intra" : "");
      var head = e.chain ? "url(#gk-arrow-chain)" : "url(#gk-arrow)";
      var p = el("path", {"class": cls, d: d, "marker-end": head}, layer);
      if (e.both) { p.setAttribute("marker-start", head); }
      el("title", {}, p).textContent = Array.from(e.kinds).join(", ") + (e.possible ? " (possible)" : "");
    });
  }

  function drawItem(svg, it, idx) {
    var g = el("g", {"class": "gk-" + it.type, "data-item": idx}, svg), title = el("title", {}, g);
    var text = el("text", {x: it.x + R + 5, y: it.y + 4, "class": "gk-label"}, g);
    var color = kinds[it.kind].color;
    if (it.type === "node") {
      var n = it.n, crit = n.crit === data.critical, src = n.col === 0;
      g.setAttribute("data-id", n.id);
      if (src) {
        el("rect", {x: it.x - 7, y: it.y - 7, width: 14, height: 14, transform: "rotate(45 " + it.x + " " + it.y + ")",
                    "class": "gk-source-mark"}, g);
        g.classList.add("gk-source");
        if (state.focus === nodes.indexOf(n)) {
          g.classList.add("gk-focused");
          el("circle", {cx: it.x, cy: it.y, r: 12, "class": "gk-focus-ring"}, g);
        }
        g.addEventListener("click", function () { setFocus(state.focus === nodes.indexOf(n) ? -1 : nodes.indexOf(n)); });
      } else if (crit) {
        el("polygon", {points: star(it.x, it.y, 9), fill: color, "class": "gk-critical"}, g);
      } else {
        el("circle", {cx: it.x, cy: it.y, r: R, fill: color}, g);
      }
      if (n.conf === "possible") { g.classList.add("gk-faded"); }
      n.flags.forEach(function (f) { g.classList.add("gk-" + f); });
      if (n.flags.indexOf("rogue") >= 0) { el("circle", {cx: it.x, cy: it.y, r: 11, "class": "gk-rogue-ring"}, g); }
      text.textContent = (n.flags.indexOf("rogue") >= 0 ? "\u26a0 rogue: " : "") + cut(n.name);
      title.textContent = n.hover;
      return;
    }
    var key = it.key;
    g.setAttribute("data-group", key);
    g.addEventListener("click", function () {
      if (state.open.has(key)) { state.open.delete(key); } else { state.open.add(key); }
      render();
    });
    if (it.type === "handle") {
      g.setAttribute("data-collapsed", "false");
      text.textContent = "\u25be " + cut(key) + " (" + it.count + ")";
      title.textContent = "click to fold the " + it.count + " nodes of " + key;
      text.setAttribute("x", it.x - R);
      return;
    }
    g.setAttribute("data-collapsed", "true");
    g.setAttribute("data-count", it.members.length);
    el("rect", {x: it.x - 9, y: it.y - 8, width: 18, height: 16, rx: 4, fill: color, "class": "gk-group-mark"}, g);
    var badge = el("text", {x: it.x, y: it.y + 4, "class": "gk-count"}, g);
    badge.textContent = it.members.length > 99 ? "99+" : String(it.members.length);
    text.setAttribute("x", it.x + 14);
    text.textContent = "\u25b8 " + cut(key) + (it.crit ? "  \u2605" + it.crit : "");
    if (it.possible) { g.classList.add("gk-faded"); }
    if (it.chain) { g.classList.add("gk-chain"); }
    title.textContent = it.members.length + " nodes (" + it.crit + " critical); click to expand:\n"
      + it.members.slice(0, 12).map(function (i) { return nodes[i].name; }).join("\n")
      + (it.members.length > 12 ? "\n\u2026" : "");
  }

  function headers(svg, items, cols) {
    cols.forEach(function (c) {
      var present = [], x = 0;
      items.forEach(function (it) { if (it.col === c) { x = it.x; if (present.indexOf(it.kind) < 0) { present.push(it.kind); } } });
      present.sort(function (a, b) { return kinds[a].rank - kinds[b].rank; });
      var t = el("text", {x: x - R, y: 16, "class": "gk-header"}, svg);
      (c === 0 ? ["source"] : present).forEach(function (k, line) {  // one kind a line: never wider than a column
        var span = el("tspan", {x: x - R, dy: line ? 14 : 0}, t);
        span.textContent = k;
      });
    });
  }

  function legend(items) {
    var box = document.getElementById("gk-legend");
    box.textContent = "";
    var seen = [];
    items.forEach(function (it) { if (it.col > 0 && seen.indexOf(it.kind) < 0) { seen.push(it.kind); } });
    seen.sort(function (a, b) { return kinds[a].rank - kinds[b].rank; });
    function entry(cls, sw, txt) {
      var s = document.createElement("span");
      s.className = "gk-key " + cls;
      var i = document.createElement("i");
      i.style.background = sw || "";
      s.appendChild(i);
      s.appendChild(document.createTextNode(txt));
      box.appendChild(s);
    }
    seen.forEach(function (k) { entry("gk-key-kind", kinds[k].color, k); });
    entry("gk-key-source", "", "source (click: focus)");
    entry("gk-key-critical", "", "critical");
    entry("gk-key-group", "", "group (click: expand)");
    entry("gk-key-possible", "", "possible (faded, dotted)");
    entry("gk-key-chain", "", "cache-poisoning chain");
    entry("gk-key-rogue", "", "rogue registration");
  }

  function render() {
    var built = build(), items = built.items, edges = built.edges, lay = layout(items, edges);
    root.textContent = "";
    var svg = el("svg", {width: lay.width, height: lay.height, viewBox: "0 0 " + lay.width + " " + lay.height,
                         "class": "gk-svg", role: "img"}, root);
    var defs = el("defs", {}, svg);
    [["gk-arrow", "gk-arrowhead"], ["gk-arrow-chain", "gk-arrowhead gk-chain-head"]].forEach(function (m) {
      var mk = el("marker", {id: m[0], viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
                             markerUnits: "userSpaceOnUse", orient: "auto-start-reverse"}, defs);
      el("path", {d: "M0,0 L10,5 L0,10 z", "class": m[1]}, mk);
    });
    headers(svg, items, lay.cols);
    drawEdges(svg, items, edges);
    var layer = el("g", {"class": "gk-items"}, svg);
    items.forEach(function (it, k) { drawItem(layer, it, k); });
    legend(items);
    var shown = nodes.filter(visible).length;
    document.getElementById("gk-shown").textContent = shown + " of " + nodes.length + " nodes, "
      + items.filter(function (it) { return it.type === "group"; }).length + " folded group(s)";
    root.setAttribute("data-focus", state.focus < 0 ? "" : nodes[state.focus].id);
  }

  function setFocus(i) {
    state.focus = i;
    document.getElementById("gk-focus").value = String(i);
    render();
  }

  var select = document.getElementById("gk-focus");
  var all = document.createElement("option");
  all.value = "-1";
  all.textContent = "all " + data.sources.length + " source(s)";
  select.appendChild(all);
  data.sources.forEach(function (s, i) {
    var o = document.createElement("option");
    o.value = String(i);
    o.textContent = s.name + " \u2014 " + s.id;
    select.appendChild(o);
  });
  select.addEventListener("change", function () { setFocus(parseInt(select.value, 10)); });
  document.getElementById("gk-expand").addEventListener("click", function () {
    nodes.forEach(function (n) { if (n.group) { state.open.add(n.group); } });
    render();
  });
  document.getElementById("gk-collapse").addEventListener("click", function () { state.open.clear(); render(); });
  if (nodes.length <= OPEN_BELOW) {  // a small radius reads best unfolded
    nodes.forEach(function (n) { if (n.group) { state.open.add(n.group); } });
  }
  render();
})();
