/* Draw the steps of a run page's table and of a pair page's side cells from the runs' step
   data scripts (<run>.steps.js beside each run page, written once per run and loaded with a
   <script src>, which works from file:// and a zip where fetch() does not), read through
   window.rgRunSteps(run id) (assets/rundata.js): {steps: [...], order: [...], wf: 1}. A pair
   page's rows come from its table's own packed data (site/pairrows.py). Every text from the data is
   written with textContent or as a text node: nothing from it is parsed as HTML. This runs
   before tables.js and tree.js (deferred scripts run in document order), so sorting, filtering
   and the tree see the rows. */
(function () {
  "use strict";
  var runSteps = window.rgRunSteps || function () { return null; };
  var OPEN_CHARS = 200;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function chars(text) {  /* code points, as the page builder counts them */
    return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g) || []).length;
  }
  function slug(s) { return s.c || s.s; }
  function payload(parent, label, text, open) {
    if (!text) { parent.appendChild(el("span", "muted", "no " + label)); return; }
    var d = el("details", "payload"), sum = el("summary", null, label + " ");
    if (open) { d.open = true; }
    sum.appendChild(el("span", "muted", "(" + chars(text) + " chars)"));
    d.appendChild(sum);
    d.appendChild(el("pre", null, text));
    parent.appendChild(d);
  }
  function mark(parent, cls, text) { parent.appendChild(el("span", "mark " + cls, text)); }

  /* The run page: one row per step, in tree order when the tree is drawn. */
  function runRow(s, nested, wf) {
    var st = slug(s), tr = el("tr", "st-row-" + st);
    tr.id = "step-" + s.i;
    if (s.r) { tr.classList.add("rec"); }
    if (s.l && s.g) { tr.classList.add("in-loop"); }
    if (nested) {
      tr.setAttribute("data-depth", String(s.d || 0));
      if (s.p !== undefined) { tr.setAttribute("data-parent", String(s.p)); }
    }
    var td = el("td", "n"), a = el("a", null, String(s.i));
    td.setAttribute("data-sort", String(s.i));
    a.href = "#step-" + s.i;
    td.appendChild(a); tr.appendChild(td);
    td = el("td"); td.appendChild(el("span", "st st-" + st, s.s)); tr.appendChild(td);
    tr.appendChild(el("td", null, s.y));
    td = el("td", "act");
    if (s.d) { td.style.paddingLeft = (8 + 14 * s.d) + "px"; }
    if (s.k) {
      var b = el("button", "tw", "\u25be");
      b.type = "button";
      b.setAttribute("aria-expanded", "true");
      b.title = "hide the " + s.k + " steps inside";
      td.appendChild(b);
    }
    td.appendChild(document.createTextNode(s.a));
    tr.appendChild(td);
    for (var k = 0; k < 4; k += 1) {
      td = el("td", "n", s.n[k]);
      td.setAttribute("data-sort", s.v[k]);
      tr.appendChild(td);
    }
    if (wf) {
      td = el("td", "wf");
      if (s.b) {
        var wt = el("div", "wt"), bar = el("i", "wb wb-" + s.b[2]);
        bar.style.left = s.b[0] + "%"; bar.style.width = s.b[1] + "%"; bar.title = s.b[3];
        wt.appendChild(bar); td.appendChild(wt);
      } else {
        td.appendChild(el("span", "muted", "\u2013"));
      }
      tr.appendChild(td);
    }
    td = el("td");
    if (s.w) { mark(td, "waste", "wasted"); }
    if (s.r === "counted") { mark(td, "rec-mark", "recovering"); }
    if (s.l) { mark(td, s.g ? "loop-mark" : "repeat-mark", s.l + (s.g ? " \u00b7 stagnant loop" : " \u00b7 repeat")); }
    tr.appendChild(td);
    td = el("td", "payloads");
    payload(td, "input", s["in"], false);
    td.appendChild(document.createTextNode(" "));
    payload(td, "output", s.out, false);
    tr.appendChild(td);
    return tr;
  }
  Array.prototype.forEach.call(document.querySelectorAll("table[data-steps]"), function (table) {
    var run = runSteps(table.getAttribute("data-steps"));
    if (!run) { return; }
    var body = table.tBodies[0], nested = table.hasAttribute("data-tree");
    var subs = {}, depth = {};
    Array.prototype.slice.call(body.querySelectorAll("tr[data-after]")).forEach(function (tr) {
      var at = tr.getAttribute("data-after");
      (subs[at] = subs[at] || []).push(tr);
      body.removeChild(tr);
    });
    var order = run.order || run.steps.map(function (_, i) { return i; });
    var rows = document.createDocumentFragment();
    order.forEach(function (i) {
      var s = run.steps[i];
      rows.appendChild(runRow(s, nested, run.wf));
      depth[s.i] = s.d || 0;
      (subs[String(s.i)] || []).forEach(function (tr) {
        if (nested) {
          tr.setAttribute("data-depth", String(depth[s.i] + 1));
          tr.setAttribute("data-parent", String(s.i));
        }
        tr.querySelector("td.act").style.paddingLeft = (22 + 14 * depth[s.i]) + "px";
        rows.appendChild(tr);
      });
    });
    body.appendChild(rows);
  });

  /* A pair page: its rows from the table's packed data-rows (site/pairrows.py), a modified
     row followed by the word diffs of its input, output and error. */
  function count(n) { return Number(n).toLocaleString("en-US"); }
  function wordDiff(pieces) {
    var pre = el("pre", "wdiff-text");
    pieces.forEach(function (p) {
      if (p[0] === 0) { pre.appendChild(document.createTextNode(p[1])); }
      else if (p[0] === 1) { pre.appendChild(el("del", null, p[1])); }
      else if (p[0] === 2) { pre.appendChild(el("ins", null, p[1])); }
      else if (p[0] === 3) { pre.appendChild(el("span", "fold", "\u2026 " + count(p[1]) + " unchanged characters \u2026")); }
      else if (p[0] === 4) { pre.appendChild(el("span", "fold", "\u2026 more changes (open both sides)")); }
      else { pre.appendChild(el("span", "fold", "too long to diff word by word (" + count(p[1]) + " and " + count(p[2]) + " words)")); }
    });
    return pre;
  }
  function wordDiffRow(r, i) {
    var tr = el("tr", "word-diff-row"), td = el("td", "n"), box = el("div", "wdiff");
    tr.id = "row-" + i + "-diff";
    td.setAttribute("data-sort", String(i));
    tr.appendChild(td);
    td = el("td");
    td.colSpan = 4;
    td.setAttribute("data-value", r.s);
    r.p.forEach(function (part) {
      var div = el("div", "wdiff-part");
      div.setAttribute("data-part", part[0]);
      div.appendChild(el("span", "muted", part[0]));
      div.appendChild(wordDiff(part[1]));
      box.appendChild(div);
    });
    td.appendChild(box);
    tr.appendChild(td);
    return tr;
  }
  function sideCell(side, key) {
    if (!side) { return el("td", "side empty"); }
    var cls = "side" + (side[2] ? " rec" : "") + (side[3] && side[4] ? " in-loop" : "") + " st-row-" + side[1];
    var td = el("td", cls);
    td.setAttribute("data-" + key, String(side[0]));
    if (side[3]) {
      td.setAttribute("data-loop", side[3]);
      if (side[4]) { td.setAttribute("data-stagnant", "1"); }
    }
    if (side[2] === 2) { td.setAttribute("data-rec", "1"); }
    return td;
  }
  function pairRow(r, i) {
    var tr = el("tr", "diff-" + r.s + (r.f ? " first-div" : ""));
    tr.id = "row-" + i;
    var td = el("td", "n"), a = el("a", null, String(i));
    td.setAttribute("data-sort", String(i));
    a.href = "#row-" + i;
    td.appendChild(a); tr.appendChild(td);
    td = el("td", null, r.s);
    td.setAttribute("data-value", r.s);
    if (r.f) {
      td.appendChild(el("br"));
      var first = el("span", "mark first-mark", "first divergence");
      first.id = "first-divergence";
      td.appendChild(first);
    }
    tr.appendChild(td);
    tr.appendChild(sideCell(r.b, "b"));
    tr.appendChild(sideCell(r.c, "c"));
    td = el("td", "deltas");
    (r.d || []).forEach(function (d) { td.appendChild(el("div", null, d[0] + " " + d[1])); });
    (r.w || []).forEach(function (part) { td.appendChild(el("div", "rewritten", part + " rewritten")); });
    if (r.x) {
      var args = el("div", "arg-diff");
      args.appendChild(el("span", "muted", "input"));
      r.x.forEach(function (x) {
        var line = el("div");
        line.appendChild(el("code", null, x[0]));
        line.appendChild(document.createTextNode(" " + x[1]));
        args.appendChild(line);
      });
      td.appendChild(args);
    }
    tr.appendChild(td);
    return tr;
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.diff[data-rows]"), function (table) {
    if (!window.rgUnpack) { return; }
    var body = table.tBodies[0], rows = document.createDocumentFragment();
    window.rgUnpack(table.getAttribute("data-rows")).forEach(function (r, i) {
      rows.appendChild(pairRow(r, i));
      if (r.p) { rows.appendChild(wordDiffRow(r, i)); }
    });
    body.appendChild(rows);
  });

  /* A pair page: each side cell shows its step (the cell's classes and marks are the pair's). */
  Array.prototype.forEach.call(document.querySelectorAll("table.diff[data-b]"), function (table) {
    var sides = { b: runSteps(table.getAttribute("data-b")), c: runSteps(table.getAttribute("data-c")) };
    var hrefs = { b: table.getAttribute("data-b-href"), c: table.getAttribute("data-c-href") };
    Array.prototype.forEach.call(table.querySelectorAll("td.side"), function (td) {
      var side = td.hasAttribute("data-b") ? "b" : td.hasAttribute("data-c") ? "c" : null;
      if (!side || !sides[side]) { return; }
      var s = sides[side].steps[parseInt(td.getAttribute("data-" + side), 10)];
      if (!s) { return; }
      var head = el("div", "step-head"), a = el("a", null, "#" + s.i), loop = td.getAttribute("data-loop");
      a.href = hrefs[side] + "#step-" + s.i;
      head.appendChild(a);
      head.appendChild(document.createTextNode(" "));
      head.appendChild(el("span", "st st-" + slug(s), s.s));
      head.appendChild(document.createTextNode(" "));
      head.appendChild(el("strong", null, s.a));
      head.appendChild(document.createTextNode(" "));
      head.appendChild(el("span", "muted", s.y));
      if (loop) {
        var stuck = td.hasAttribute("data-stagnant");
        mark(head, stuck ? "loop-mark" : "repeat-mark", loop + (stuck ? " \u00b7 stagnant loop" : " \u00b7 repeat"));
      }
      if (td.hasAttribute("data-rec")) { mark(head, "rec-mark", "recovering"); }
      td.appendChild(head);
      td.appendChild(el("div", "step-nums", s.tk + " tok \u00b7 " + s.n[2] + " \u00b7 " + s.n[3]));
      var input = s.pi !== undefined ? s.pi : s["in"], output = s.po !== undefined ? s.po : s.out;
      var open = !!s.f || (chars(input) <= OPEN_CHARS && chars(output) <= OPEN_CHARS);
      payload(td, "input", input, open);
      payload(td, "output", output, open);
    });
  });

  /* A link to a step (#step-12, #row-3) lands on it once the rows exist. */
  var target = location.hash.length > 1 && location.hash.indexOf("=") < 0 ? document.getElementById(location.hash.slice(1)) : null;
  if (target) { target.scrollIntoView(); }
})();
