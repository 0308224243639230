/* The run page's step tree: a step's toggle hides or shows the rows nested inside it (rows
   come in tree order, each with data-depth), and two buttons open or close the whole tree. */
(function () {
  "use strict";
  var table = document.querySelector("table[data-tree]");
  if (!table) { return; }
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  function depth(r) { return parseInt(r.getAttribute("data-depth") || "0", 10); }
  function inside(row) {  /* the rows after ``row`` nested deeper than it */
    var out = [], d = depth(row), i = rows.indexOf(row) + 1;
    for (; i < rows.length && depth(rows[i]) > d; i += 1) { out.push(rows[i]); }
    return out;
  }
  function set(button, open) {
    var row = button.closest("tr");
    button.setAttribute("aria-expanded", open ? "true" : "false");
    button.textContent = open ? "\u25be" : "\u25b8";
    row.classList.toggle("tree-closed", !open);
    /* a row shows when no enclosing row is closed */
    var closedAt = null;
    inside(row).forEach(function (r) {
      if (closedAt !== null && depth(r) <= closedAt) { closedAt = null; }
      var hide = !open || closedAt !== null;
      r.classList.toggle("tree-hidden", hide);
      if (closedAt === null && r.classList.contains("tree-closed")) { closedAt = depth(r); }
    });
  }
  table.addEventListener("click", function (e) {
    var button = e.target.closest("button.tw");
    if (button) { set(button, button.getAttribute("aria-expanded") !== "true"); }
  });
  var bar = document.createElement("p"), all = ["Expand all", "Collapse all"];
  bar.className = "tree-controls";
  all.forEach(function (text, i) {
    var b = document.createElement("button");
    b.type = "button"; b.textContent = text;
    b.addEventListener("click", function () {
      var toggles = Array.prototype.slice.call(table.querySelectorAll("button.tw"));
      if (i === 0) { toggles.forEach(function (t) { set(t, true); }); } else { toggles.reverse().forEach(function (t) { set(t, false); }); }
    });
    bar.appendChild(b);
  });
  table.parentNode.insertBefore(bar, table);
  /* a link to a step inside a closed branch opens the branch */
  function reveal() {
    var id = location.hash.slice(1), row = id && document.getElementById(id);
    if (!row || !row.classList.contains("tree-hidden")) { return; }
    rows.slice(0, rows.indexOf(row)).reverse().forEach(function (r) {
      var b = r.querySelector("button.tw");
      if (b && r.classList.contains("tree-closed") && inside(r).indexOf(row) >= 0) { set(b, true); }
    });
  }
  window.addEventListener("hashchange", reveal);
})();
