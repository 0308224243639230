/* Draw the page's Plotly charts. Small figures sit in <script type="application/json"> blocks;
   big ones live in a data .js file beside the page, loaded when the chart scrolls into view
   (a <script src> works from file://, where fetch() of a local file does not). */
(function () {
  "use strict";
  var config = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  function draw(div, fig) {
    div.textContent = "";
    var layout = fig.layout || {};
    if (dark) {  // the reader's dark mode: transparent backgrounds, light text and grid
      layout = Object.assign({}, layout, { paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
        font: Object.assign({}, layout.font, { color: "#e4e7ec" }) });
      ["xaxis", "yaxis", "yaxis2"].forEach(function (axis) {
        if (layout[axis]) layout[axis] = Object.assign({}, layout[axis], { gridcolor: "#2d3440", zerolinecolor: "#3a4352" });
      });
    }
    window.Plotly.newPlot(div, fig.data, layout, config);
  }
  function load(div) {
    var s = document.createElement("script");
    s.src = div.getAttribute("data-src");
    s.onload = function () { draw(div, window.RG_CHARTS[div.getAttribute("data-chart")]); };
    document.head.appendChild(s);
  }
  var lazy = [];
  document.querySelectorAll("div.chart").forEach(function (div) {
    var id = div.getAttribute("data-figure");
    if (id) { draw(div, JSON.parse(document.getElementById(id).textContent)); } else { lazy.push(div); }
  });
  if (!lazy.length) { return; }
  if (!("IntersectionObserver" in window)) { lazy.forEach(load); return; }
  var seen = new IntersectionObserver(function (entries) {
    entries.forEach(function (e) { if (e.isIntersecting) { seen.unobserve(e.target); load(e.target); } });
  }, { rootMargin: "200px" });
  lazy.forEach(function (div) { seen.observe(div); });
})();
