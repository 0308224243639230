/* The index's search box: finds runs and steps by the words of their text (step input and
   output, errors, tool names, task ids, run metadata). The index is split into small script
   files under search/ (a <script src> works from file://, fetch() of a local file does not),
   by unit (a night, or a block of older nights: reportgen/site/search.py); only the shards
   of the words typed (one per unit holding words of that prefix), and the run and text
   chunks of the results shown (a step's text from its run's step data script,
   <run>.steps.js), are loaded. A unit numbers its runs from 0; meta.js lists the nights,
   newest first, with their units, so each hit gets the site's number (newest night first).
   Each hit shows its run, the step's action, status and trial, and a snippet of the matched
   text with the words typed marked; hits come newest night first, PAGE at a time ("more"
   shows the next ones). Every value is written with textContent or as a text node: nothing
   from the data is parsed as HTML. */
(function () {
  "use strict";
  var PAGE = 50, BEFORE = 60, AFTER = 160;
  var meta = null, shards = {}, runChunks = {}, docChunks = {}, stepChunks = {}, waiting = {};
  var segments = {}, prefixes = {}, where = {};  /* per unit: [localStart, siteStart, runs] */
  var found = [], shown = PAGE, current = "";
  var root = document.querySelector("[data-search-root]");
  if (!root) return;
  var base = root.getAttribute("data-search-root");
  var input = root.querySelector("input[type=search]");
  var status = root.querySelector(".search-status");
  var list = root.querySelector(".search-results");
  var more = document.createElement("button");
  more.type = "button";
  more.className = "search-more";
  more.hidden = true;
  list.parentNode.insertBefore(more, list.nextSibling);

  function load(src, done) {  /* src: a site-relative script */
    if (waiting[src]) { waiting[src].push(done); return; }
    waiting[src] = [done];
    var s = document.createElement("script");
    s.src = base + src;
    s.onload = s.onerror = function () {
      var calls = waiting[src]; waiting[src] = null;
      calls.forEach(function (f) { f(); });
    };
    document.head.appendChild(s);
  }
  function index(name) { return "search/" + name + ".js"; }
  /* A run's steps by idx as [action, status, text], from its step data script (written
     beside its run page for the run page and the pair pages; see static/steps.js). */
  function stepDocs(run) {
    var out = {}, data = window.rgRunSteps ? window.rgRunSteps(run) : null;
    ((data && data.steps) || []).forEach(function (s) {
      out[s.i] = [s.a, s.s, (s["in"] || "") + " " + (s.out || "")];
    });
    return out;
  }
  window.RG_SEARCH_META = function (m) {
    var at = 0, local = {};
    m.nights.forEach(function (n) {  /* [night, runs, unit], newest first */
      var unit = String(n[2]);
      if (!segments[unit]) { segments[unit] = []; local[unit] = 0; }
      segments[unit].push([local[unit], at, n[1]]);
      local[unit] += n[1];
      at += n[1];
    });
    Object.keys(m.units).forEach(function (unit) {
      var set = {}, text = String(m.units[unit]);
      for (var i = 0; i + m.prefix <= text.length; i += m.prefix) set[text.slice(i, i + m.prefix)] = true;
      prefixes[unit] = set;
    });
    meta = m;
  };
  window.RG_SEARCH_SHARD = function (name, packed) { shards[name] = window.rgUnpack(packed); };
  window.RG_SEARCH_RUNS = function (unit, k, runs) { runChunks[unit + "-" + k] = runs; };
  window.RG_SEARCH_DOCS = function (unit, k, docs) { docChunks[unit + "-" + k] = docs; };
  /* A unit's posting as the site's (runs numbered newest night first), or -1. */
  function siteNo(unit, p) {
    var run = Math.floor(p / meta.step_code), segs = segments[unit] || [];
    for (var i = 0; i < segs.length; i++) {
      if (run >= segs[i][0] && run < segs[i][0] + segs[i][2]) {
        return (segs[i][1] + run - segs[i][0]) * meta.step_code + p % meta.step_code;
      }
    }
    return -1;
  }

  function words(query) {
    return (query.toLowerCase().match(/[a-z0-9_]{2,40}/g) || []);
  }
  function postings(word) {
    var hits = {};
    Object.keys(segments).forEach(function (unit) {
      var shard = shards[word.slice(0, meta.prefix) + "." + unit] || {};
      Object.keys(shard).forEach(function (w) {
        if (w.lastIndexOf(word, 0) !== 0) return;
        shard[w].forEach(function (p) {
          var n = siteNo(unit, p);
          if (n >= 0) { hits[n] = true; where[n] = [unit, p]; }
        });
      });
    });
    return hits;
  }
  function matches(query) {
    var result = null;
    words(query).forEach(function (w) {
      var hits = postings(w);
      if (result === null) { result = hits; return; }
      Object.keys(result).forEach(function (p) { if (!hits[p]) delete result[p]; });
    });
    // runs are numbered newest night first: in posting order, the newest hits come first
    return Object.keys(result || {}).map(Number).sort(function (a, b) { return a - b; });
  }

  // Where the words typed begin a word of ``text``: [start, end] pairs, in order.
  function spans(text, ws) {
    var out = [], re = /[a-z0-9_]+/gi, m;
    while ((m = re.exec(text)) !== null) {
      var word = m[0].toLowerCase();  // ASCII only: the same length as m[0]
      for (var i = 0; i < ws.length; i++) {
        if (word.lastIndexOf(ws[i], 0) === 0) {
          out.push([m.index, m.index + Math.min(m[0].length, ws[i].length)]);
          break;
        }
      }
    }
    return out;
  }
  // ``text`` into ``parent`` as text nodes, the words typed in <mark> (built, never parsed).
  function marked(parent, text, ws) {
    var at = 0;
    spans(text, ws).forEach(function (s) {
      if (s[0] > at) parent.appendChild(document.createTextNode(text.slice(at, s[0])));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(s[0], s[1]);
      parent.appendChild(mark);
      at = s[1];
    });
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)));
  }
  // The part of ``text`` around its first match (its start when nothing matches in it).
  function snippet(text, ws) {
    text = text.replace(/\s+/g, " ").trim();
    var first = spans(text, ws)[0], start = first ? Math.max(0, first[0] - BEFORE) : 0;
    var end = Math.min(text.length, (first ? first[0] : 0) + AFTER);
    return (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
  }

  /* The scripts the hits need: their runs' chunks first, then each run hit's text chunk and
     each step hit's run step data. */
  function needFiles(hits) {
    var names = {};
    hits.forEach(function (p) {
      var unit = where[p][0], runNo = Math.floor(where[p][1] / meta.step_code);
      var idx = p % meta.step_code - 1;
      var r = unit + "-" + Math.floor(runNo / meta.runs_per_chunk);
      var d = unit + "-" + Math.floor(runNo / meta.docs_per_chunk);
      if (!runChunks[r]) {
        names[index("runs-" + r)] = function () { runChunks[r] = runChunks[r] || []; };
        return;
      }
      var run = runChunks[r][runNo % meta.runs_per_chunk];
      if (!run) return;
      if (idx < 0 && !docChunks[d]) {
        names[index("docs-" + d)] = function () { docChunks[d] = docChunks[d] || {}; };
      } else if (idx >= 0 && !stepChunks[run[3]]) {
        names[run[0].replace(/\.html$/, ".steps.js")] = function () { stepChunks[run[3]] = stepDocs(run[3]); };
      }
    });
    return names;
  }
  function hit(p, ws) {
    var unit = where[p][0], local = where[p][1], runNo = Math.floor(local / meta.step_code);
    var idx = p % meta.step_code - 1;
    var run = runChunks[unit + "-" + Math.floor(runNo / meta.runs_per_chunk)][runNo % meta.runs_per_chunk];
    if (!run) return null;
    var doc = (idx >= 0 ? stepChunks[run[3]][idx]
      : docChunks[unit + "-" + Math.floor(runNo / meta.docs_per_chunk)][local]) || [null, null, ""];
    var li = document.createElement("li"), a = document.createElement("a");
    a.href = base + run[0] + (idx >= 0 ? "#step-" + idx : "");
    a.textContent = run[1] + (idx >= 0 ? " — step " + idx : " — run");
    li.appendChild(a);
    var about = document.createElement("span");
    about.className = "search-step muted";
    if (idx >= 0) {
      about.appendChild(document.createTextNode(" · "));
      marked(about, doc[0] || "", ws);
      about.appendChild(document.createTextNode(" · " + (doc[1] || "")));
    }
    if (run[2] !== null && run[2] !== undefined) {
      about.appendChild(document.createTextNode(" · trial " + run[2]));
    }
    li.appendChild(about);
    var text = document.createElement("div");
    text.className = "search-snippet";
    marked(text, snippet(doc[2] || "", ws), ws);
    li.appendChild(text);
    return li;
  }
  function show(query) {
    var page = found.slice(0, shown), ws = words(query);
    var names = needFiles(page), missing = Object.keys(names);
    if (missing.length) {
      var left = missing.length;
      missing.forEach(function (name) {
        load(name, function () {
          names[name]();  // a file that failed to load: shown without it, no retry loop
          if (--left === 0 && query === current) show(query);
        });
      });
      return;
    }
    list.textContent = "";
    page.forEach(function (p) {
      var li = hit(p, ws);
      if (li) list.appendChild(li);
    });
    status.textContent = found.length === 0 ? "No run or step has all of these words."
      : found.length > page.length ? "The newest " + page.length + " of " + found.length + " matches:"
      : found.length + (found.length === 1 ? " match, newest night first:" : " matches, newest night first:");
    more.hidden = found.length <= page.length;
    more.textContent = "more (" + (found.length - page.length) + " left)";
  }
  function search() {
    var query = input.value, ws = words(query);
    current = query;
    if (!ws.length) { list.textContent = ""; status.textContent = ""; more.hidden = true; return; }
    if (!meta) {
      load(index("meta"), function () { if (meta) search(); else status.textContent = "The search index is missing."; });
      return;
    }
    var needed = {};
    ws.forEach(function (w) {
      var prefix = w.slice(0, meta.prefix);
      Object.keys(prefixes).forEach(function (unit) {
        var name = prefix + "." + unit;
        if (!shards[name] && prefixes[unit][prefix]) needed[name] = true;
      });
    });
    var names = Object.keys(needed);
    if (!names.length) { found = matches(query); shown = PAGE; show(query); return; }
    var left = names.length;
    names.forEach(function (n) {
      load(index("w-" + n), function () {
        shards[n] = shards[n] || {};  // a shard that failed to load: no matches, no retry loop
        if (--left === 0) search();
      });
    });
  }
  more.addEventListener("click", function () { shown += PAGE; show(current); });
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  root.addEventListener("submit", function (e) { e.preventDefault(); search(); });
})();
