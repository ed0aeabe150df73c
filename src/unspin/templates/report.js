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

  /* ---- static report: texts of lazy side-by-side views, kept once per article */
  var texts = null;
  function fill(view) {
    if (!view.classList.contains("lazy") || view.getAttribute("data-filled")) return;
    if (texts === null) texts = JSON.parse(document.getElementById("texts").textContent);
    view.querySelectorAll(".text[data-text]").forEach(function (col) {
      var text = texts[col.getAttribute("data-text")] || "";
      col.querySelectorAll("[data-r]").forEach(function (el) {
        var r = el.getAttribute("data-r").split(",");
        el.appendChild(document.createTextNode(text.slice(+r[0], +r[1])));
      });
    });
    view.setAttribute("data-filled", "1");
  }

  /* ---- router: one view at a time, chosen by the URL fragment */
  var current = null;
  function route() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (err) { id = ""; }
    var target = id ? document.getElementById(id) : null;
    var view = target ? (target.classList.contains("view") ? target : target.closest(".view")) : null;
    if (!view) view = document.getElementById("stories");
    if (current !== view) {
      if (current) current.classList.remove("current");
      view.classList.add("current");
      current = view;
    }
    fill(view);
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
