/* Sort and filter tables marked data-filter, with the state in the URL fragment
   (#label=candidate&q=login&sort=-cost) so a filtered view can be shared. Fragments without
   "=" are plain anchors (#step-12) and are left alone. */
(function () {
  "use strict";
  /* Each body cell's column position, counting colspans: [[cell, first column], ...]. */
  function positions(row) {
    var at = 0;
    return Array.prototype.map.call(row.cells, function (c) { var p = [c, at]; at += c.colSpan || 1; return p; });
  }
  /* Tables marked "stack" become cards on a narrow screen (site.css): each cell takes its
     column's name from the header as data-label; the class "stacked" turns the cards on only
     once the labels are there. Columns whose header has data-extra hide behind a button. */
  Array.prototype.forEach.call(document.querySelectorAll("table.data"), function (t) {
    if (!t.tHead || !t.tHead.rows.length) { return; }
    var heads = positions(t.tHead.rows[0]), names = {}, extra = {}, count = 0;
    heads.forEach(function (h) {
      names[h[1]] = (h[0].innerText || h[0].textContent).replace(/[\s\u2195]+/g, " ").trim();
      if (h[0].hasAttribute("data-extra")) { extra[h[1]] = true; h[0].classList.add("x"); count += 1; }
    });
    var stack = t.classList.contains("stack");
    Array.prototype.forEach.call(t.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (r) {
        positions(r).forEach(function (p) {
          if (stack && p[0].tagName === "TD" && !p[0].hasAttribute("data-label") && (p[0].colSpan || 1) === 1) {
            p[0].setAttribute("data-label", names[p[1]] || "");
          }
          if (extra[p[1]] && (p[0].colSpan || 1) === 1) { p[0].classList.add("x"); }
        });
      });
    });
    if (stack) { t.classList.add("stacked"); }
    if (count) {
      var bar = document.createElement("div"), button = document.createElement("button");
      bar.className = "filters more-cols-bar";
      button.type = "button"; button.className = "more-cols";
      function show(few) {
        t.classList.toggle("few", few);
        button.setAttribute("aria-expanded", few ? "false" : "true");
        button.textContent = few ? "more columns (" + count + ")" : "fewer columns";
      }
      button.addEventListener("click", function () { show(!t.classList.contains("few")); });
      show(true);
      bar.appendChild(button);
      t.parentNode.insertBefore(bar, t);
    }
  });
  var tables = Array.prototype.slice.call(document.querySelectorAll("table[data-filter]"));
  if (!tables.length) { return; }
  function cols(t) { return Array.prototype.map.call(t.tHead.rows[0].cells, function (th) { return th.getAttribute("data-col") || ""; }); }
  function cellText(td) { return td.hasAttribute("data-value") ? td.getAttribute("data-value") : td.textContent.trim(); }
  function cellValue(td) { return td.hasAttribute("data-sort") ? td.getAttribute("data-sort") : td.textContent.trim(); }
  function decode(text) { try { return decodeURIComponent(text); } catch (e) { return null; } }
  /* A malformed fragment (a cut shared link: "#q=%E0%A4%A") means no filter, never an error. */
  function readState() {
    var h = location.hash.slice(1), s = Object.create(null), bad = false;
    if (h.indexOf("=") < 0) { return s; }
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("="); if (i <= 0) { return; }
      var k = decode(kv.slice(0, i)), v = decode(kv.slice(i + 1));
      if (k === null || v === null) { bad = true; } else { s[k] = v; }
    });
    return bad ? Object.create(null) : s;
  }
  function writeState(s) {
    var parts = Object.keys(s).sort().filter(function (k) { return s[k]; }).map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(s[k]); });
    var url = location.href.split("#")[0] + (parts.length ? "#" + parts.join("&") : "");
    try { history.replaceState(null, "", url); } catch (e) { location.hash = parts.join("&"); }
  }
  function apply(t, s) {
    var names = cols(t), body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows), shown = 0;
    if (s.sort) {
      var desc = s.sort.charAt(0) === "-", at = names.indexOf(desc ? s.sort.slice(1) : s.sort);
      if (at >= 0) {
        var keyed = rows.map(function (r, i) { return [cellValue(r.cells[at]), i, r]; });
        var numeric = keyed.every(function (k) { return k[0] === "" || !isNaN(parseFloat(k[0])); });
        keyed.sort(function (a, b) {
          if (a[0] === "" || b[0] === "") { return (a[0] === "") - (b[0] === "") || a[1] - b[1]; }
          var c = numeric ? parseFloat(a[0]) - parseFloat(b[0]) : a[0].localeCompare(b[0]);
          return (desc ? -c : c) || a[1] - b[1];
        });
        keyed.forEach(function (k) { body.appendChild(k[2]); });
      }
    }
    rows.forEach(function (r) {
      var ok = !s.q || r.textContent.toLowerCase().indexOf(s.q.toLowerCase()) >= 0;
      names.forEach(function (n, i) { if (ok && n && s[n] && r.cells[i] && cellText(r.cells[i]) !== s[n]) { ok = false; } });
      r.hidden = !ok; if (ok) { shown += 1; }
    });
    t.rgCount.textContent = shown + " of " + rows.length + " rows";
    t.rgControls.forEach(function (c) { c.value = s[c.name] || ""; });
  }
  function applyAll() { var s = readState(); tables.forEach(function (t) { apply(t, s); }); }
  function change(name, value) { var s = readState(); s[name] = value; writeState(s); applyAll(); }
  tables.forEach(function (t) {
    var names = cols(t), bar = document.createElement("div"), q = document.createElement("input");
    bar.className = "filters"; t.rgControls = [];
    q.type = "search"; q.name = "q"; q.placeholder = "filter rows"; q.setAttribute("aria-label", "filter rows");
    q.addEventListener("input", function () { change("q", q.value); });
    bar.appendChild(q); t.rgControls.push(q);
    t.getAttribute("data-filter").split(" ").forEach(function (name) {
      var at = names.indexOf(name); if (!name || at < 0) { return; }
      var sel = document.createElement("select"), values = {};
      sel.name = name; sel.setAttribute("aria-label", "filter by " + name);
      Array.prototype.forEach.call(t.tBodies[0].rows, function (r) { values[cellText(r.cells[at])] = 1; });
      [""].concat(Object.keys(values).sort()).forEach(function (v) { var o = document.createElement("option"); o.value = v; o.textContent = v || "all " + name; sel.appendChild(o); });
      sel.addEventListener("change", function () { change(name, sel.value); });
      bar.appendChild(sel); t.rgControls.push(sel);
    });
    t.rgCount = document.createElement("span"); t.rgCount.className = "count"; bar.appendChild(t.rgCount);
    t.parentNode.insertBefore(bar, t);
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th) {
      var name = th.getAttribute("data-col"); if (!name) { return; }
      th.classList.add("sortable"); th.title = "sort by " + name;
      th.addEventListener("click", function () { var cur = readState().sort; change("sort", cur === name ? "-" + name : name); });
    });
  });
  window.addEventListener("hashchange", applyAll);
  applyAll();
})();
