/* unspin report and service pages. Inlined; hashed into the page's CSP.
   Never builds markup from strings: texts go in through textContent / text nodes only. */
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

  /* ---- static report: side-by-side views over the size budget are drawn here from
     compact JSON (the same cuts and marks the template gets; texts kept once) */
  var lazy = null;
  var SEV = {high: 0, medium: 1, low: 2};
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function link(href, text, cls) {
    var a = el("a", cls, text);
    a.setAttribute("href", href);
    return a;
  }
  function txt(parent, s) { parent.appendChild(document.createTextNode(s)); }
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
  function draw(view) {
    if (!view.classList.contains("lazy") || view.getAttribute("data-drawn")) return;
    if (lazy === null) lazy = JSON.parse(document.getElementById("pairs").textContent);
    var i = view.id.slice(5), p = lazy.pairs[i], v = "v" + i;
    if (!p) return;
    function art(side) { return lazy.arts[side.k] || [side.id, "", null, null, null, null, null]; }
    function title(side) { var a = art(side); return a[1] || a[0]; }
    var story = p.st === null ? null : document.querySelector('#story-list a[href="#story-' + p.st + '"]');
    var label = story ? story.textContent : "";
    view.textContent = "";
    var crumbs = el("p", "crumbs");
    crumbs.appendChild(link("#stories", "Stories"));
    if (story) { txt(crumbs, " › "); crumbs.appendChild(link("#story-" + p.st, label)); }
    view.appendChild(crumbs);
    var box = el("div", "pairview");
    box.setAttribute("data-pair", i);
    box.setAttribute("data-left", p.L.id);
    box.setAttribute("data-right", p.R.id);
    box.setAttribute("data-relation", p.r);
    var h2 = el("h2"), badge = el("span", "rel rel-" + p.r, p.r + (p.u ? " ?" : ""));
    txt(badge, " ");
    badge.appendChild(el("span", "conf", p.c));
    h2.appendChild(badge);
    txt(h2, " " + title(p.L) + " ");
    h2.appendChild(el("span", "vs", p.d ? "→" : "vs"));
    txt(h2, " " + title(p.R));
    box.appendChild(h2);
    var dir = el("p", "direction");
    dir.appendChild(el("strong", null, p.dir || "no direction: " + p.r + " is not reuse"));
    if (p.dr) txt(dir, ": " + p.dr);
    box.appendChild(dir);
    if (p.cov.length) {
      box.appendChild(el("p", "coverage", "Coverage (share of each text in reused passages): " +
        p.cov.map(function (c) { return c[0] + " " + c[1]; }).join(", ")));
    }
    if (story) {
      var st = el("p", "in-story", "Story: ");
      st.appendChild(link("#story-" + p.st, label));
      box.appendChild(st);
    }
    if (p.why.length) {
      box.appendChild(el("h3", null, "Why"));
      var ul = el("ul", "reasons");
      p.why.forEach(function (w) { ul.appendChild(el("li", null, w)); });
      box.appendChild(ul);
    }
    box.appendChild(document.getElementById("legend").content.cloneNode(true));
    var cols = el("div", "columns");
    cols.appendChild(column(p, p.L, "L", "R", v, art));
    cols.appendChild(column(p, p.R, "R", "L", v, art));
    box.appendChild(cols);
    box.appendChild(el("h3", null, p.d ? "Changes" : "Differences (direction unknown)"));
    if (p.ch.length) {
      var ol = el("ol", "changes");
      p.ch.forEach(function (c, k) {
        var n = k + 1, li = el("li", "change sev-" + c[1]), go = el("span", "goto");
        li.id = v + "-c" + n;
        li.setAttribute("data-kind", c[0]);
        li.appendChild(el("span", "kind", c[0].replace(/_/g, " ")));
        txt(li, " ");
        li.appendChild(el("span", "sev", c[1]));
        txt(li, " " + c[2] + " ");
        if (c[3]) go.appendChild(link("#" + v + "-L-c" + n, "left"));
        if (c[3] && c[4]) txt(go, " · ");
        if (c[4]) go.appendChild(link("#" + v + "-R-c" + n, "right"));
        li.appendChild(go);
        ol.appendChild(li);
      });
      box.appendChild(ol);
    } else {
      box.appendChild(el("p", "empty", "None listed" +
        (p.x ? "" : " (" + p.r + " pairs are not compared for changes)") + "."));
    }
    var det = el("details", "passages"), table = el("table"), head = el("tr"), tb = el("tbody");
    det.appendChild(el("summary", null, p.ps.length + " aligned passage" + (p.ps.length !== 1 ? "s" : "")));
    ["#", "similarity", "meaning", "words", "note"].forEach(function (h) {
      var th = el("th", null, h);
      th.setAttribute("scope", "col");
      head.appendChild(th);
    });
    table.appendChild(el("thead")).appendChild(head);
    p.ps.forEach(function (q, k) {
      var tr = el("tr"), td = el("td");
      td.appendChild(link("#" + v + "-L-p" + (k + 1), String(k + 1)));
      tr.appendChild(td);
      for (var j = 0; j < 3; j++) tr.appendChild(el("td", "num", q[j]));
      tr.appendChild(el("td", null, q[3] ? "quotation only: not counted as reuse" : ""));
      tb.appendChild(tr);
    });
    table.appendChild(tb);
    det.appendChild(table);
    box.appendChild(det);
    view.appendChild(box);
    view.setAttribute("data-drawn", "1");
  }
  function column(p, side, col, other, v, art) {
    var a = art(side), sec = el("section", "col col-" + col), h3 = el("h3");
    sec.setAttribute("aria-label", side.role + ": " + side.id);
    h3.appendChild(el("span", "role", side.role));
    txt(h3, " ");
    if (side.k !== null) h3.appendChild(link("#article-" + side.k, side.id));
    else txt(h3, side.id);
    sec.appendChild(h3);
    sec.appendChild(el("p", "title", a[1] || ""));
    sec.appendChild(el("p")).appendChild(meta(a));
    if (!side.segs) {
      sec.appendChild(el("p", "note", "The text of this article is not available (no store archive, or it changed since the scan)."));
      return sec;
    }
    var text = lazy.texts[side.k] || "", div = el("div", "text"), seenP = {}, seenC = {};
    div.setAttribute("lang", a[4] || "");
    side.segs.forEach(function (g) {
      var pn = g[2], chs = g[5];
      var span = el("span", "seg " + (pn ? "p sim" + g[3] + (g[4] ? " qo" : "") : "un"));
      if (pn) {
        span.setAttribute("data-p", pn);
        if (!seenP[pn]) {
          seenP[pn] = 1;
          span.id = v + "-" + col + "-p" + pn;
          var b = link("#" + v + "-" + other + "-p" + pn, String(pn), "badge");
          b.setAttribute("title", "passage " + pn + ": go to the other side");
          span.appendChild(b);
        }
      }
      if (chs.length) {
        var sev = chs.map(function (c) { return p.ch[c - 1][1]; })
          .sort(function (x, y) { return SEV[x] - SEV[y]; })[0];
        var m = el("mark", "chg sev-" + sev);
        var first = chs.filter(function (c) { return !seenC[c]; });
        first.forEach(function (c) { seenC[c] = 1; });
        m.setAttribute("data-c", chs.join(" "));
        if (first.length) m.id = v + "-" + col + "-c" + first[0];
        m.setAttribute("title", chs.map(function (c) { return p.ch[c - 1][2]; }).join("\n"));
        first.forEach(function (c) { m.appendChild(link("#" + v + "-c" + c, String(c), "cbadge")); });
        txt(m, text.slice(g[0], g[1]));
        span.appendChild(m);
      } else txt(span, text.slice(g[0], g[1]));
      div.appendChild(span);
    });
    sec.appendChild(div);
    return sec;
  }

  /* ---- router: one view at a time, chosen by the URL fragment */
  var current = null;
  function route() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (err) { id = ""; }
    var inPair = /^v(\d+)-/.exec(id);  /* a passage or change of a view maybe not drawn yet */
    if (inPair && !document.getElementById(id)) {
      var pv = document.getElementById("pair-" + inPair[1]);
      if (pv) draw(pv);
    }
    var target = id ? document.getElementById(id) : null;
    var view = target ? (target.classList.contains("view") ? target : target.closest(".view")) : null;
    if (!view) view = document.getElementById("stories");
    if (current !== view) {
      if (current) current.classList.remove("current");
      view.classList.add("current");
      current = view;
    }
    draw(view);
    applyFilters();
    if (target && target !== view) target.scrollIntoView({block: "center"});
    else window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", route);

  /* ---- filters: relation types, minimum confidence, words in titles */
  var form = document.getElementById("filters");
  form.hidden = false;
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  var shownNote = form.querySelector(".shown");
  var limit = 200;
  var more = document.getElementById("more");
  more.addEventListener("click", function () { limit += 200; applyFilters(); });
  form.addEventListener("input", function () { limit = 200; applyFilters(); });

  function settings() {
    var types = [];
    form.querySelectorAll("input[name=relation]").forEach(function (c) { if (c.checked) types.push(c.value); });
    var all = types.length === form.querySelectorAll("input[name=relation]").length;
    var min = parseFloat(form.querySelector("input[name=min_confidence]").value) || 0;
    var words = form.querySelector("input[name=q]").value.toLowerCase().split(/\s+/).filter(Boolean);
    return {types: types, all: all, min: min, words: words, active: !all || min > 0};
  }
  function hasWords(el, words) {
    var s = el.getAttribute("data-search") || "";
    return words.every(function (w) { return s.indexOf(w) >= 0; });
  }
  function applyFilters() {
    var f = settings();
    if (current && current.id === "stories") {
      var shown = 0, matched = 0;
      document.querySelectorAll("#story-list > .story-row").forEach(function (row) {
        var ok = hasWords(row, f.words);
        if (ok && f.active) {
          var best = JSON.parse(row.getAttribute("data-best"));
          ok = f.types.some(function (t) { return best[t] !== undefined && best[t] >= f.min; });
        }
        if (ok) matched++;
        row.hidden = !ok || shown >= limit;
        if (ok && shown < limit) shown++;
      });
      more.hidden = matched <= shown;
      shownNote.textContent = "Showing " + shown + " of " + matched + " matching stories.";
    } else if (current) {
      var rows = current.querySelectorAll(".rel-row"), n = 0;
      rows.forEach(function (row) {
        var ok = f.types.indexOf(row.getAttribute("data-rel")) >= 0 &&
          parseFloat(row.getAttribute("data-conf")) >= f.min && hasWords(row, f.words);
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
