/* unspin report and service pages. Inlined; hashed into the page's CSP.
   Never builds markup from strings: texts go in through textContent / text nodes and
   attributes through setAttribute only. */
(function () {
  "use strict";
  var body = document.body;
  var live = body.classList.contains("live");
  body.classList.add("js");

  /* ---- passages: hovering or focusing one lights up its counterpart on the other side */
  function light(ev, on) {
    var seg = ev.target.closest && ev.target.closest(".seg[data-p]");
    if (!seg) return;
    var view = seg.closest(".pairview");
    if (!view) return;
    var n = seg.getAttribute("data-p");
    view.querySelectorAll(".seg[data-p]").forEach(function (s) {
      if (s.getAttribute("data-p") === n) s.classList.toggle("hl", on);
    });
  }
  document.addEventListener("mouseover", function (e) { light(e, true); });
  document.addEventListener("mouseout", function (e) { light(e, false); });
  document.addEventListener("focusin", function (e) { light(e, true); });
  document.addEventListener("focusout", function (e) { light(e, false); });

  /* ---- "/" jumps to the search box */
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    var typing = t instanceof HTMLTextAreaElement || t.isContentEditable ||
      (t instanceof HTMLInputElement && !/^(checkbox|radio|button|submit|reset|file)$/.test(t.type));
    if (e.key === "/" && !typing) {
      var q = document.querySelector("input[name=q]");
      if (q) { e.preventDefault(); q.focus(); }
    }
  });

  if (live) return;

  /* ================================================================ static report
     Views not written out as HTML are drawn here from compact JSON blocks (see
     unspin.report.page_data), element for element as the templates write them. */
  var SVGNS = "http://www.w3.org/2000/svg";
  var SEV = {high: 0, medium: 1, low: 2};
  var STORY_PAGE = 200, QUOTE_PAGE = 200;
  var blocks = {}, unpacking = {};
  function block(name) {  /* a block's data (a packed one once needBlocks has inflated it) */
    if (!(name in blocks)) {
      var holder = document.getElementById("d-" + name);
      if (holder && holder.hasAttribute("data-packed")) return {};  /* not inflated yet */
      blocks[name] = holder ? JSON.parse(holder.textContent) : {};
      if (holder && name !== "list") holder.textContent = "";  /* parsed once: free the text */
    }
    return blocks[name];
  }
  function needBlocks(names) {  /* null when every block is at hand, else a promise of them */
    var waits = [];
    names.forEach(function (name) {
      if (name in blocks) return;
      var holder = document.getElementById("d-" + name);
      if (!holder || !holder.hasAttribute("data-packed")) { block(name); return; }
      if (!(name in unpacking)) {
        unpacking[name] = inflate(JSON.parse(holder.textContent)).then(function (s) {
          blocks[name] = JSON.parse(s);
          holder.textContent = "";
        });
      }
      waits.push(unpacking[name]);
    });
    return waits.length ? Promise.all(waits) : null;
  }
  /* the blocks a fragment's view is drawn from, if it is not in the page yet */
  function blocksFor(id) {
    if (id === "quotes" || /^quote-\d+$/.test(id)) return quotesDrawn ? [] : ["quotes"];
    if (document.getElementById(id)) return [];
    if (/^(story|article)-\d+$/.test(id)) return ["stories", "why"];
    if (/^(pair-\d+$|v\d+-)/.test(id)) return ["pairs", "why"];
    return [];
  }
  var L = block("list");
  var TYPES = L.types, REUSE = {};
  L.reuse.forEach(function (t) { REUSE[t] = 1; });
  var main = document.getElementById("main");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    return e;
  }
  function link(href, text, cls) {
    var a = el("a", cls, text);
    a.setAttribute("href", href);
    return a;
  }
  function txt(parent, s) { parent.appendChild(document.createTextNode(s)); }
  function plural(n, word) { return n + " " + word + (n !== 1 ? "s" : ""); }
  function pyfloat(x) {  /* a number as Python's str() writes it */
    var s = String(x);
    return /^-?\d+$/.test(s) ? s + ".0" : s;
  }
  function kind(t) { return typeof t === "number" ? TYPES[t] : t; }

  /* articles: a position in the data, or the id of an article the tables do not list */
  function art(ref) {
    return typeof ref === "number" ? L.a[ref] : [ref, ""];
  }
  function artHref(ref) { return typeof ref === "number" ? "#article-" + ref : "#stories"; }
  function alink(ref) { return link(artHref(ref), art(ref)[0]); }
  function storyOf(ref) {
    var a = typeof ref === "number" ? L.a[ref] : null;
    return a && a[7] !== undefined && a[7] !== null ? a[7] : -1;
  }
  function meta(a) {  /* a: [id, title, outlet, published_at, lang, safe url, url] */
    var m = el("span", "meta");
    if (a[2]) m.appendChild(el("span", "outlet", a[2]));
    if (a[3]) { if (a[2]) txt(m, " · "); m.appendChild(el("time", null, a[3])); }
    if (a[4]) { if (a[2] || a[3]) txt(m, " · "); m.appendChild(el("span", "lang", a[4])); }
    if (a[5]) {
      txt(m, " · ");
      var o = link(a[5], "original", "src");
      o.setAttribute("rel", "noopener noreferrer nofollow");
      o.setAttribute("target", "_blank");
      m.appendChild(o);
    } else if (a[6]) { txt(m, " · "); m.appendChild(el("span", "url", a[6])); }
    return m;
  }
  function badge(relation, conf, undecided) {  /* the rel_badge macro */
    var b = el("span", "rel rel-" + relation, relation + (undecided ? " ?" : ""));
    if (conf !== null) { txt(b, " "); b.appendChild(el("span", "conf", conf)); }
    return b;
  }
  function counts(parent, row) {  /* the counts macro: [[type, n, best], ...] */
    row[4].forEach(function (c) {
      parent.appendChild(el("span", "rel rel-" + kind(c[0]), kind(c[0]) + " " + c[1]));
      txt(parent, " ");
    });
  }
  function storyLabel(i) { return L.sl[i][0]; }
  function crumbs(story) {
    var p = el("p", "crumbs");
    p.appendChild(link("#stories", "Stories"));
    if (story >= 0) { txt(p, " › "); p.appendChild(link("#story-" + story, storyLabel(story))); }
    return p;
  }

  /* ---------------------------------------------------------------- story views */
  function drawStory(i) {
    var s = block("stories")[i];
    if (!s) return null;
    var row = L.sl[i], view = el("section", "view story");
    view.id = "story-" + i;
    txt(view, "\n");
    view.appendChild(el("p", "crumbs")).appendChild(link("#stories", "Stories"));
    txt(view, "\n");
    view.appendChild(el("h2", null, row[0]));
    txt(view, "\n");
    var facts = el("p", "facts");
    facts.appendChild(el("span", "sid", s.id));
    txt(facts, " · " + row[1] + " · " + plural(row[2], "article") + " · " + plural(row[3], "source") + " ");
    counts(facts, row);
    view.appendChild(facts);
    txt(view, "\n");
    var rels = s.rel || [];
    if (s.k.length === 1 && !rels.length) {
      var one = el("p", "single"), ref = s.k[0];
      if (typeof ref === "number") one.id = "article-" + ref;
      txt(one, "One article, no relations: " + art(ref)[0] + " · ");
      one.appendChild(meta(art(ref)));
      view.appendChild(one);
      txt(view, "\n");
    } else {
      if (s.g) { view.appendChild(graph(i, s.g)); txt(view, "\n"); }
      view.appendChild(el("h3", null, "Articles"));
      txt(view, "\n");
      var sources = {};
      (s.so || s.k).forEach(function (r) { sources[r] = 1; });
      var t = el("table", "articles");
      t.appendChild(el("thead")).appendChild(headRow(["article", "title", "about it", "role"]));
      var tb = t.appendChild(el("tbody"));
      s.k.forEach(function (r) {
        var a = art(r), tr = el("tr");
        if (typeof r === "number") tr.id = "article-" + r;
        tr.appendChild(el("td", null, a[0]));
        tr.appendChild(el("td", null, a[1] || ""));
        tr.appendChild(el("td")).appendChild(meta(a));
        tr.appendChild(el("td", null, sources[r] ? "source" : "derivative"));
        tb.appendChild(tr);
      });
      view.appendChild(t);
      txt(view, "\n");
      view.appendChild(el("h3", null, "Relations"));
      txt(view, "\n");
      view.appendChild(relationRows(rels));
      txt(view, "\n");
    }
    if (s.q) {
      view.appendChild(el("h3", null, "Quotations"));
      txt(view, "\n");
      var ul = el("ul", "story-quotes");
      s.q.forEach(function (q) {
        var li = el("li");
        li.appendChild(link("#quote-" + q[0], "“" + q[1] + "”"));
        if (q[2]) txt(li, " (" + q[2] + ")");
        txt(li, ": " + q[3] + " articles" + (q[4] ? ", altered in " + q[4] : ""));
        ul.appendChild(li);
      });
      view.appendChild(ul);
      txt(view, "\n");
    }
    main.appendChild(view);
    return view;
  }
  function headRow(names) {
    var tr = el("tr");
    names.forEach(function (h) {
      var th = el("th", null, h);
      th.setAttribute("scope", "col");
      tr.appendChild(th);
    });
    return tr;
  }
  function relationRows(rels) {  /* the relation_rows macro */
    if (!rels.length) return el("p", "empty", "No relations.");
    var t = el("table", "relations"), head = headRow(["relation", "confidence", "source → derivative", "changes"]);
    var th = el("th");
    th.setAttribute("scope", "col");
    th.appendChild(el("span", "sr", "open"));
    head.appendChild(th);
    t.appendChild(el("thead")).appendChild(head);
    var tb = t.appendChild(el("tbody"));
    rels.forEach(function (i) {
      var r = L.r[i], rel = kind(r[2]), tr = el("tr", "rel-row"), td = el("td");
      tr.setAttribute("data-rel", rel);
      tr.setAttribute("data-conf", pyfloat(r[3]));
      td.appendChild(badge(rel, null, REUSE[rel] && !r[5]));
      tr.appendChild(td);
      tr.appendChild(el("td", "num", r[4]));
      td = el("td");
      if (r[5]) {
        var src = r[5] === 1 ? r[0] : r[1], der = r[5] === 1 ? r[1] : r[0];
        td.appendChild(alink(src));
        txt(td, " → ");
        td.appendChild(alink(der));
      } else {
        td.appendChild(alink(r[0]));
        txt(td, " – ");
        td.appendChild(alink(r[1]));
        if (REUSE[rel]) { txt(td, " "); td.appendChild(el("span", "undecided", "(direction undecided)")); }
      }
      tr.appendChild(td);
      tr.appendChild(el("td", "num", r[6] ? String(r[6]) : "–"));
      tr.appendChild(el("td")).appendChild(link("#pair-" + i, "side by side", "open"));
      tb.appendChild(tr);
    });
    return t;
  }
  function trunc(x) { return String(Math.trunc(x)); }
  function graph(story, g) {  /* the lineage_svg macro: g = [w, h, nodes, edges, left out] */
    var fig = el("figure", "lineage"), scroll = el("div", "scroll");
    var box = svg("svg", {
      "class": "graph", viewBox: "0 0 " + trunc(g[0]) + " " + trunc(g[1]),
      width: trunc(g[0]), height: trunc(g[1]), role: "img",
      "aria-label": "Lineage graph: sources at the top, arrows from source to derivative"
    });
    var defs = box.appendChild(svg("defs", {}));
    var marker = defs.appendChild(svg("marker", {
      id: "arrow-" + story, viewBox: "0 0 10 10", refX: "10", refY: "5",
      markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse"
    }));
    marker.appendChild(svg("path", {d: "M0,0 L10,5 L0,10 z", "class": "arrowhead"}));
    var nodes = g[2], edges = g[3], anyPair = false;
    function nid(n) { return n[0] === 1 ? n[1] : art(n[1])[0]; }
    /* an edge: [from, to, directed, path, lx, ly, relation, order] drawing relation as
       made (its type, confidence and reasons), or [..., relation or -1, type,
       confidence, label, reasons] */
    edges = edges.map(function (e) {
      var x = {from: e[0], to: e[1], directed: e[2], path: e[3], lx: e[4], ly: e[5], pair: e[6]};
      if (e.length > 8) {
        x.rel = e[7]; x.conf = e[8]; x.label = e[9]; x.reasons = e[10];
      } else {
        var r = L.r[e[6]], w = block("why")[e[6]], dr = w[0] ? [w[0]] : [];
        x.rel = kind(r[2]); x.conf = r[3];
        x.label = x.rel + (e[2] ? "" : " ?") + " " + r[4];
        x.reasons = e[7] === 1 ? w[1].concat(dr) : dr.concat(w[1]);
      }
      return x;
    });
    edges.forEach(function (e) {
      var ge = svg("g", {
        "class": "edge rel-" + e.rel + " " + (e.directed ? "directed" : "undecided"),
        "data-source": nid(nodes[e.from]), "data-derivative": nid(nodes[e.to]),
        "data-relation": e.rel, "data-confidence": pyfloat(e.conf)
      });
      var title = nid(nodes[e.from]) + " " + (e.directed ? "→" : "–") + " " + nid(nodes[e.to]) + ": " + e.label;
      e.reasons.forEach(function (r) { title += "; " + r; });
      ge.appendChild(svg("title", {})).textContent = title;
      var path = {d: e.path};
      if (e.directed) path["marker-end"] = "url(#arrow-" + story + ")";
      ge.appendChild(svg("path", path));
      box.appendChild(ge);
    });
    nodes.forEach(function (n) {  /* [0, article, x, y, line1, line2, source] or [1, id, x, y, line1, line2, tooltip] */
      var gn, tip;
      if (n[0] === 1) {
        gn = svg("g", {"class": "node unseen", "data-id": n[1], "data-outlet": n[4]});
        tip = n[6];
      } else {
        var a = art(n[1]);
        gn = svg("g", {"class": "node article" + (n[6] ? " source" : ""), "data-id": a[0]});
        tip = [a[0], a[2], a[1]].filter(function (x) { return x; }).join(" · ");
      }
      gn.appendChild(svg("title", {})).textContent = tip;
      gn.appendChild(svg("rect", {x: trunc(n[2]), y: trunc(n[3]), width: "190", height: "48", rx: "6"}));
      gn.appendChild(svg("text", {x: trunc(n[2] + 95), y: trunc(n[3] + 20)})).textContent = n[4];
      gn.appendChild(svg("text", {"class": "sub", x: trunc(n[2] + 95), y: trunc(n[3] + 38)})).textContent = n[5];
      if (n[0] === 1) box.appendChild(gn);
      else {
        var a2 = svg("a", {href: artHref(n[1])});
        a2.appendChild(gn);
        box.appendChild(a2);
      }
    });
    edges.forEach(function (e) {
      var label = e.label, lx = e.lx, ly = e.ly;
      var gl = svg("g", {"class": "label rel-" + e.rel});
      gl.appendChild(svg("rect", {
        x: trunc(lx - label.length * 3.4 - 4), y: trunc(ly - 9),
        width: trunc(label.length * 6.8 + 8), height: "16", rx: "3"
      }));
      gl.appendChild(svg("text", {x: trunc(lx), y: trunc(ly + 3)})).textContent = label;
      if (e.pair >= 0) {
        anyPair = true;
        var a = svg("a", {href: "#pair-" + e.pair, "class": "edge-label"});
        a.appendChild(gl);
        box.appendChild(a);
      } else box.appendChild(gl);
    });
    scroll.appendChild(box);
    fig.appendChild(scroll);
    fig.appendChild(el("figcaption", null, "Sources at the top. Solid arrow: source → derivative; dashed line, no arrow, “?”: direction undecided; dotted: quoted from an unseen source (outlined box). Labels: relation and confidence" + (anyPair ? "; a label opens that pair side by side" : "") + "."));
    if (g[4]) fig.appendChild(el("p", "note", "Not drawn (no lineage edge): " + plural(g[4], "article") + ", listed below."));
    return fig;
  }

  /* ---------------------------------------------------------------- side by side */
  /* cut a text of n code points at every passage and change boundary: the port of
     unspin.report.segments (same merging and first-of marks) */
  function segments(n, ps, cs) {
    var cuts = {0: 1}, out = [], startedP = {}, startedC = {};
    cuts[n] = 1;
    function clip(list) {
      return list.filter(function (x) { return x[0] < x[1] && x[0] < n; })
        .map(function (x) { return [Math.max(0, x[0]), Math.min(n, x[1])].concat(x.slice(2)); });
    }
    ps = clip(ps); cs = clip(cs);
    ps.concat(cs).forEach(function (x) { cuts[x[0]] = 1; cuts[x[1]] = 1; });
    var points = Object.keys(cuts).map(Number).sort(function (a, b) { return a - b; });
    for (var k = 0; k + 1 < points.length; k++) {
      var x = points[k], y = points[k + 1];
      if (x >= y) continue;
      var p = null;
      for (var j = 0; j < ps.length; j++) if (ps[j][0] <= x && ps[j][1] >= y) { p = ps[j]; break; }
      var cover = cs.filter(function (c) { return c[0] <= x && c[1] >= y; });
      var nums = cover.map(function (c) { return c[2]; });
      var sev = null, rank = 99;
      cover.forEach(function (c) {
        var r = SEV[c[3]] !== undefined ? SEV[c[3]] : 3;
        if (r < rank) { rank = r; sev = c[3]; }
      });
      var num = p ? p[2] : null, last = out[out.length - 1];
      if (last && last.passage === num && last.changes.join(" ") === nums.join(" ") &&
          last.end === x && !(num !== null && !startedP[num])) {
        last.end = y;
        continue;
      }
      var firstP = num !== null && !startedP[num];
      if (num !== null) startedP[num] = 1;
      var firstC = nums.filter(function (c) { return !startedC[c]; });
      nums.forEach(function (c) { startedC[c] = 1; });
      out.push({start: x, end: y, passage: num, shade: p ? p[3] : 0, qo: p ? p[4] : 0,
        changes: nums, severity: sev, firstP: firstP, firstC: firstC});
    }
    return out;
  }
  /* Python offsets count code points; JavaScript strings count UTF-16 units */
  function slicer(text) {
    if (!/[\uD800-\uDFFF]/.test(text)) return {n: text.length, slice: function (a, b) { return text.slice(a, b); }};
    var at = [0], i = 0;
    while (i < text.length) {
      var c = text.charCodeAt(i);
      i += (c >= 0xD800 && c <= 0xDBFF && i + 1 < text.length &&
        text.charCodeAt(i + 1) >= 0xDC00 && text.charCodeAt(i + 1) <= 0xDFFF) ? 2 : 1;
      at.push(i);
    }
    return {n: at.length - 1, slice: function (a, b) { return text.slice(at[a], at[b]); }};
  }
  /* texts: inflated (browser's DecompressionStream) when a view first needs them */
  var texts = {}, inflating = {}, PENDING = {};
  function inflate(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var j = 0; j < bin.length; j++) bytes[j] = bin.charCodeAt(j);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Response(stream).text();
  }
  function needTexts(refs) {  /* null when every text is at hand, else a promise of them */
    var T = block("texts"), waits = [];
    refs.forEach(function (k) {
      if (typeof k !== "number" || k in texts) return;
      if (T.t && k in T.t) texts[k] = T.t[k];
      else if (T.z && k in T.z) {
        if (!(k in inflating)) inflating[k] = inflate(T.z[k]).then(function (s) { texts[k] = s; });
        waits.push(inflating[k]);
      }
    });
    return waits.length ? Promise.all(waits) : null;
  }
  function drawPair(i) {
    var p = block("pairs")[i];
    if (!p) return null;
    var r = L.r[i], rel = kind(r[2]), v = "v" + i, directed = r[5] !== 0;
    var wait = needTexts([r[0], r[1]]);
    if (wait) {
      wait.then(route, function (err) { console.error("unspin: cannot read a text", err); });
      return PENDING;
    }
    var left = r[5] === 2 ? r[1] : r[0], right = r[5] === 2 ? r[0] : r[1];
    var story = storyOf(r[0]);
    /* p = [coverage, changes, passages]; why = [direction reason, reasons] */
    var why = block("why")[i], ch = p[1], ps = p[2];
    var view = el("section", "view pair");
    view.id = "pair-" + i;
    txt(view, "\n");
    view.appendChild(crumbs(story));
    txt(view, "\n");
    var box = el("div", "pairview");
    box.setAttribute("data-pair", String(i));
    box.setAttribute("data-left", art(left)[0]);
    box.setAttribute("data-right", art(right)[0]);
    box.setAttribute("data-relation", rel);
    txt(box, "\n");
    var h2 = el("h2");
    h2.appendChild(badge(rel, r[4], REUSE[rel] && !directed));
    txt(h2, " " + (art(left)[1] || art(left)[0]) + " ");
    h2.appendChild(el("span", "vs", directed ? "→" : "vs"));
    txt(h2, " " + (art(right)[1] || art(right)[0]));
    box.appendChild(h2);
    txt(box, "\n");
    var dir = el("p", "direction");
    dir.appendChild(el("strong", null, directed ? art(left)[0] + " → " + art(right)[0] :
      REUSE[rel] ? "direction undecided" : "no direction: " + rel + " is not reuse"));
    if (why[0]) txt(dir, ": " + why[0]);
    box.appendChild(dir);
    txt(box, "\n");
    if (p[0].length) {
      box.appendChild(el("p", "coverage", "Coverage (share of each text in reused passages): " +
        p[0].map(function (c) {
          var who = c[0] === 0 ? art(r[0])[0] : c[0] === 1 ? art(r[1])[0] : c[0];
          return who + " " + c[1];
        }).join(", ")));
      txt(box, "\n");
    }
    if (story >= 0) {
      var st = el("p", "in-story", "Story: ");
      st.appendChild(link("#story-" + story, storyLabel(story)));
      box.appendChild(st);
      txt(box, "\n");
    }
    if (why[1].length) {
      box.appendChild(el("h3", null, "Why"));
      txt(box, "\n");
      var ul = el("ul", "reasons");
      why[1].forEach(function (w) { ul.appendChild(el("li", null, w)); });
      box.appendChild(ul);
      txt(box, "\n");
    }
    box.appendChild(document.getElementById("legend").content.cloneNode(true));
    txt(box, "\n");
    var cols = el("div", "columns");
    txt(cols, "\n");
    var sides = [[left, "L", "R", directed ? "source" : "A", 0], [right, "R", "L", directed ? "derivative" : "B", 2]];
    sides.forEach(function (sd) {
      var passages = ps.map(function (q, k) { return [q[sd[4]], q[sd[4] + 1], k + 1, q[4], q[5]]; })
        .filter(function (q) { return q[0] >= 0; });
      var marks = [];
      ch.forEach(function (c, k) { if (c[3 + sd[4]] >= 0) marks.push([c[3 + sd[4]], c[4 + sd[4]], k + 1, c[1]]); });
      cols.appendChild(column(sd, passages, marks, ch, v));
      txt(cols, "\n");
    });
    box.appendChild(cols);
    txt(box, "\n");
    box.appendChild(el("h3", null, directed ? "Changes" : "Differences (direction unknown)"));
    txt(box, "\n");
    if (ch.length) {
      var ol = el("ol", "changes");
      txt(ol, "\n");
      ch.forEach(function (c, k) {  /* [kind, severity, line, left start, left end, right start, right end] */
        var n = k + 1, li = el("li", "change sev-" + c[1]), go = el("span", "goto");
        li.id = v + "-c" + n;
        li.setAttribute("data-kind", c[0]);
        li.appendChild(el("span", "kind", c[0].replace(/_/g, " ")));
        txt(li, " ");
        li.appendChild(el("span", "sev", c[1]));
        txt(li, " " + c[2] + "\n");
        if (c[3] >= 0) go.appendChild(link("#" + v + "-L-c" + n, "left"));
        if (c[3] >= 0 && c[5] >= 0) txt(go, " · ");
        if (c[5] >= 0) go.appendChild(link("#" + v + "-R-c" + n, "right"));
        li.appendChild(go);
        ol.appendChild(li);
        txt(ol, "\n");
      });
      box.appendChild(ol);
    } else {
      box.appendChild(el("p", "empty", "None listed" +
        (REUSE[rel] ? "" : " (" + rel + " pairs are not compared for changes)") + "."));
    }
    txt(box, "\n");
    var det = el("details", "passages"), table = el("table"), tb = el("tbody");
    det.appendChild(el("summary", null, plural(ps.length, "aligned passage")));
    txt(det, "\n");
    table.appendChild(el("thead")).appendChild(headRow(["#", "similarity", "meaning", "words", "note"]));
    txt(table, "\n");
    ps.forEach(function (q, k) {
      var tr = el("tr"), td = el("td");
      td.appendChild(link("#" + v + "-L-p" + (k + 1), String(k + 1)));
      tr.appendChild(td);
      for (var j = 6; j < 9; j++) tr.appendChild(el("td", "num", q[j]));
      tr.appendChild(el("td", null, q[5] ? "quotation only: not counted as reuse" : ""));
      tb.appendChild(tr);
    });
    txt(tb, "\n");
    table.appendChild(tb);
    det.appendChild(table);
    box.appendChild(det);
    txt(box, "\n");
    view.appendChild(box);
    txt(view, "\n");
    main.appendChild(view);
    return view;
  }
  function column(sd, passages, marks, ch, v) {
    var ref = sd[0], col = sd[1], other = sd[2], role = sd[3];
    var a = art(ref), sec = el("section", "col col-" + col), h3 = el("h3");
    sec.setAttribute("aria-label", role + ": " + a[0]);
    txt(sec, "\n");
    h3.appendChild(el("span", "role", role));
    txt(h3, " ");
    if (typeof ref === "number") h3.appendChild(alink(ref));
    else txt(h3, a[0]);
    sec.appendChild(h3);
    txt(sec, "\n");
    sec.appendChild(el("p", "title", a[1] || ""));
    txt(sec, "\n");
    sec.appendChild(el("p")).appendChild(meta(a));
    txt(sec, "\n");
    var text = typeof ref === "number" ? texts[ref] : undefined;
    if (text === undefined) {
      sec.appendChild(el("p", "note", "The text of this article is not available (no store archive, or it changed since the scan)."));
      txt(sec, "\n");
      return sec;
    }
    var cut = slicer(text), div = el("div", "text");
    div.setAttribute("lang", a[4] || "");
    segments(cut.n, passages, marks).forEach(function (g) {
      var span = el("span", "seg " + (g.passage ? "p sim" + g.shade + (g.qo ? " qo" : "") : "un"));
      if (g.passage) span.setAttribute("data-p", String(g.passage));
      if (g.firstP) {
        span.id = v + "-" + col + "-p" + g.passage;
        var b = link("#" + v + "-" + other + "-p" + g.passage, String(g.passage), "badge");
        b.setAttribute("title", "passage " + g.passage + ": go to the other side");
        span.appendChild(b);
      }
      if (g.changes.length) {
        var m = el("mark", "chg sev-" + g.severity);
        m.setAttribute("data-c", g.changes.join(" "));
        if (g.firstC.length) m.id = v + "-" + col + "-c" + g.firstC[0];
        m.setAttribute("title", g.changes.map(function (c) { return ch[c - 1][2]; }).join("\n"));
        g.firstC.forEach(function (c) { m.appendChild(link("#" + v + "-c" + c, String(c), "cbadge")); });
        txt(m, cut.slice(g.start, g.end));
        span.appendChild(m);
      } else txt(span, cut.slice(g.start, g.end));
      div.appendChild(span);
    });
    sec.appendChild(div);
    txt(sec, "\n");
    return sec;
  }

  /* ---------------------------------------------------------------- quotation groups */
  var quotesBox = document.getElementById("quotes-lazy");
  var moreQuotes = document.getElementById("more-quotes");
  var lazyQuotes = null, quotesDrawn = 0;
  function quoteOrder() {
    if (lazyQuotes === null) {
      lazyQuotes = Object.keys(block("quotes")).map(Number).sort(function (a, b) { return a - b; });
    }
    return lazyQuotes;
  }
  function drawQuote(i) {  /* the quote_groups macro, one group: [text, speaker, articles, altered, variants] */
    var q = block("quotes")[i], altered = {};
    q[3].forEach(function (r) { altered[r] = 1; });
    var box = el("article", "quote");
    box.id = "quote-" + i;
    txt(box, "\n");
    box.appendChild(el("blockquote", null, "“" + q[0] + "”"));
    txt(box, "\n");
    var facts = el("p", "facts");
    if (q[1]) { txt(facts, "Quoted: "); facts.appendChild(el("strong", null, q[1])); txt(facts, " · "); }
    txt(facts, "carried by " + plural(q[2].length, "article"));
    if (q[3].length) {
      txt(facts, " · altered in ");
      q[3].forEach(function (r, k) { if (k) txt(facts, ", "); facts.appendChild(alink(r)); });
    } else txt(facts, " · no alteration");
    box.appendChild(facts);
    txt(box, "\n");
    var t = el("table", "variants");
    t.appendChild(el("thead")).appendChild(headRow(["wording", "article", "speaker given", ""]));
    var tb = t.appendChild(el("tbody"));
    q[4].forEach(function (w) {
      var tr = el("tr"), cell = el("td");
      tr.setAttribute("class", altered[w[0]] ? "altered" : "");
      tr.appendChild(el("td", null, "“" + (w[1] === null ? q[0] : w[1]) + "”"));
      tr.appendChild(el("td")).appendChild(alink(w[0]));
      tr.appendChild(el("td", null, w[2] || ""));
      if (altered[w[0]]) cell.appendChild(el("span", "altered-tag", "altered"));
      tr.appendChild(cell);
      tb.appendChild(tr);
    });
    box.appendChild(t);
    txt(box, "\n");
    return box;
  }
  function drawQuotes(upto) {  /* the next page of groups, or every group up to index upto */
    if (!quotesBox) return;
    var order = quoteOrder(), stop = Math.min(order.length, quotesDrawn + QUOTE_PAGE);
    while (quotesDrawn < order.length && (quotesDrawn < stop || (upto !== undefined && order[quotesDrawn] <= upto))) {
      quotesBox.appendChild(drawQuote(order[quotesDrawn]));
      quotesDrawn++;
    }
    moreQuotes.hidden = quotesDrawn >= order.length;
  }
  if (moreQuotes) moreQuotes.addEventListener("click", function () { drawQuotes(); });

  /* ---------------------------------------------------------------- router */
  /* the element of a fragment, drawing the view that holds it if it is not drawn yet */
  function find(id) {
    var found = id ? document.getElementById(id) : null, m;
    if (found || !id) return found;
    if ((m = /^story-(\d+)$/.exec(id))) return drawStory(+m[1]);
    if ((m = /^pair-(\d+)$/.exec(id))) return drawPair(+m[1]);
    if ((m = /^v(\d+)-/.exec(id))) { if (drawPair(+m[1]) === PENDING) return PENDING; }
    else if ((m = /^article-(\d+)$/.exec(id))) { if (storyOf(+m[1]) >= 0) find("story-" + storyOf(+m[1])); }
    else if ((m = /^quote-(\d+)$/.exec(id))) drawQuotes(+m[1]);
    return document.getElementById(id);
  }
  var current = null;
  function route() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (err) { id = ""; }
    var wait = needBlocks(blocksFor(id));
    if (wait) {  /* drawn once its data is inflated (route runs again) */
      wait.then(route, function (err) { console.error("unspin: cannot read the report's data", err); });
      return;
    }
    var target = find(id);
    if (target === PENDING) return;  /* drawn when its texts are inflated (route runs again) */
    var view = target ? (target.classList.contains("view") ? target : target.closest(".view")) : null;
    if (!view) view = document.getElementById("stories");
    if (current !== view) {
      if (current) current.classList.remove("current");
      view.classList.add("current");
      current = view;
    }
    if (view.id === "quotes" && quotesDrawn === 0) drawQuotes();
    applyFilters();
    if (target && target !== view) target.scrollIntoView({block: "center"});
    else window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", route);

  /* ---------------------------------------------------------------- story list and filters */
  var list = el("ol", "stories");
  list.id = "story-list";
  var storiesView = document.getElementById("stories");
  storiesView.insertBefore(list, document.getElementById("more").parentNode);
  var form = document.getElementById("filters");
  form.hidden = false;
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  var shownNote = form.querySelector(".shown");
  var limit = STORY_PAGE;
  var more = document.getElementById("more");
  more.addEventListener("click", function () { limit += STORY_PAGE; applyFilters(); });
  form.addEventListener("input", function () { limit = STORY_PAGE; applyFilters(); });
  var search = null;
  function searchText(i) {  /* a story's label, its articles' ids and titles, lower-cased */
    if (search === null) {
      search = L.sl.map(function (row) { return [row[0]]; });
      L.a.forEach(function (a) {
        if (a[7] !== undefined && a[7] !== null) search[a[7]].push(a[0], a[1] || "");
      });
      search = search.map(function (words) { return words.join(" ").toLowerCase(); });
    }
    return search[i];
  }
  function settings() {
    var types = [];
    form.querySelectorAll("input[name=relation]").forEach(function (c) { if (c.checked) types.push(c.value); });
    var all = types.length === form.querySelectorAll("input[name=relation]").length;
    var min = parseFloat(form.querySelector("input[name=min_confidence]").value) || 0;
    var words = form.querySelector("input[name=q]").value.toLowerCase().split(/\s+/).filter(Boolean);
    return {types: types, all: all, min: min, words: words, active: !all || min > 0};
  }
  function storyRow(i) {  /* the story_list macro, one row */
    var row = L.sl[i], li = el("li", "story-row");
    txt(li, "\n");
    li.appendChild(link("#story-" + i, row[0], "label"));
    txt(li, "\n");
    li.appendChild(el("span", "dates", row[1]));
    txt(li, "\n");
    li.appendChild(el("span", "n", plural(row[2], "article")));
    txt(li, "\n");
    li.appendChild(el("span", "n", plural(row[3], "source")));
    txt(li, "\n");
    counts(li.appendChild(el("span", "counts")), row);
    txt(li, "\n");
    return li;
  }
  var shownKey = null;
  function applyFilters() {
    var f = settings();
    if (current && current.id === "stories") {
      var matched = [];
      for (var i = 0; i < L.sl.length; i++) {
        if (f.words.length) {
          var s = searchText(i);
          if (!f.words.every(function (w) { return s.indexOf(w) >= 0; })) continue;
        }
        if (f.active && !L.sl[i][4].some(function (c) {
          return f.types.indexOf(kind(c[0])) >= 0 && c[2] >= f.min;
        })) continue;
        matched.push(i);
      }
      var shown = matched.slice(0, limit), key = shown.join(",");
      if (key !== shownKey) {
        var frag = document.createDocumentFragment();
        shown.forEach(function (k) { frag.appendChild(storyRow(k)); });
        list.textContent = "";
        list.appendChild(frag);
        shownKey = key;
      }
      more.hidden = matched.length <= shown.length;
      shownNote.textContent = "Showing " + shown.length + " of " + matched.length + " matching stories.";
    } else if (current) {
      var rows = current.querySelectorAll(".rel-row"), n = 0;
      rows.forEach(function (row) {
        var ok = f.types.indexOf(row.getAttribute("data-rel")) >= 0 &&
          parseFloat(row.getAttribute("data-conf")) >= f.min;
        row.hidden = !ok;
        if (ok) n++;
      });
      shownNote.textContent = rows.length ? "Showing " + n + " of " + rows.length + " relations here." : "";
    }
  }
  route();

})();

/* ---- service: drop files on the upload form */
(function () {
  "use strict";
  var zone = document.querySelector(".drop");
  var input = document.querySelector(".upload input[type=file]");
  if (!zone || !input) return;
  ["dragenter", "dragover"].forEach(function (t) {
    zone.addEventListener(t, function (e) { e.preventDefault(); zone.classList.add("over"); });
  });
  ["dragleave", "drop"].forEach(function (t) {
    zone.addEventListener(t, function () { zone.classList.remove("over"); });
  });
  zone.addEventListener("drop", function (e) {
    e.preventDefault();
    if (e.dataTransfer && e.dataTransfer.files.length) {
      input.files = e.dataTransfer.files;
      zone.querySelector(".picked").textContent = input.files.length + " file(s) ready to upload";
    }
  });
})();
