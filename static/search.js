/* The index's search box: finds runs and steps by the words of their text (step input and
   output, errors, tool names, task ids, run metadata). The index is split into small script
   files under search/ (a <script src> works from file://, fetch() of a local file does not);
   only the shards of the words typed, and the run chunks of the results shown, are loaded.
   Every value is written with textContent: nothing from the data is parsed as HTML. */
(function () {
  "use strict";
  var MAX_RESULTS = 50;
  var meta = null, shards = {}, runChunks = {}, waiting = {};
  var root = document.querySelector("[data-search-root]");
  if (!root) return;
  var base = root.getAttribute("data-search-root");
  var input = root.querySelector("input[type=search]");
  var status = root.querySelector(".search-status");
  var list = root.querySelector(".search-results");

  function load(name, done) {
    if (waiting[name]) { waiting[name].push(done); return; }
    waiting[name] = [done];
    var s = document.createElement("script");
    s.src = base + "search/" + name + ".js";
    s.onload = s.onerror = function () {
      var calls = waiting[name]; waiting[name] = null;
      calls.forEach(function (f) { f(); });
    };
    document.head.appendChild(s);
  }
  window.RG_SEARCH_META = function (m) { meta = m; };
  window.RG_SEARCH_SHARD = function (name, words) { shards[name] = words; };
  window.RG_SEARCH_RUNS = function (k, runs) { runChunks[k] = runs; };

  function words(query) {
    return (query.toLowerCase().match(/[a-z0-9_]{2,40}/g) || []);
  }
  function postings(word) {
    var shard = shards[word.slice(0, 2)] || {}, found = {};
    Object.keys(shard).forEach(function (w) {
      if (w.lastIndexOf(word, 0) === 0) shard[w].forEach(function (p) { found[p] = true; });
    });
    return found;
  }
  function matches(query) {
    var ws = words(query), result = null;
    ws.forEach(function (w) {
      var found = postings(w);
      if (result === null) { result = found; return; }
      Object.keys(result).forEach(function (p) { if (!found[p]) delete result[p]; });
    });
    return Object.keys(result || {}).map(Number).sort(function (a, b) { return a - b; });
  }
  function show(query) {
    var found = matches(query).slice(0, MAX_RESULTS + 1);
    var chunks = {};
    found.forEach(function (p) {
      chunks[Math.floor(Math.floor(p / meta.step_code) / meta.runs_per_chunk)] = true;
    });
    var needed = Object.keys(chunks).filter(function (k) { return !runChunks[k]; });
    if (needed.length) {
      var left = needed.length;
      needed.forEach(function (k) {
        load("runs-" + k, function () {
          runChunks[k] = runChunks[k] || [];
          if (--left === 0) show(query);
        });
      });
      return;
    }
    list.textContent = "";
    found.slice(0, MAX_RESULTS).forEach(function (p) {
      var runNo = Math.floor(p / meta.step_code), idx = p % meta.step_code - 1;
      var run = runChunks[Math.floor(runNo / meta.runs_per_chunk)][runNo % meta.runs_per_chunk];
      if (!run) return;
      var li = document.createElement("li"), a = document.createElement("a");
      a.href = base + run[0] + (idx >= 0 ? "#step-" + idx : "");
      a.textContent = run[1] + (idx >= 0 ? " — step " + idx : " — run");
      li.appendChild(a);
      list.appendChild(li);
    });
    status.textContent = found.length === 0 ? "No run or step has all of these words."
      : found.length > MAX_RESULTS ? "The first " + MAX_RESULTS + " matches:"
      : found.length + (found.length === 1 ? " match:" : " matches:");
  }
  function search() {
    var query = input.value, ws = words(query);
    if (!ws.length) { list.textContent = ""; status.textContent = ""; return; }
    if (!meta) {
      load("meta", function () { if (meta) search(); else status.textContent = "The search index is missing."; });
      return;
    }
    var needed = {};
    ws.forEach(function (w) {
      var name = w.slice(0, 2);
      if (!shards[name] && meta.shards[name]) needed[name] = true;
    });
    var names = Object.keys(needed);
    if (!names.length) { show(query); return; }
    var left = names.length;
    names.forEach(function (n) {
      load("w-" + n, function () {
        shards[n] = shards[n] || {};  // a shard that failed to load: no matches, no retry loop
        if (--left === 0) search();
      });
    });
  }
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  root.addEventListener("submit", function (e) { e.preventDefault(); search(); });
})();
