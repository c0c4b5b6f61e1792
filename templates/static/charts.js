// Charts are SVG rendered at build time, so every page reads without JavaScript. When JavaScript
// runs, each scaling chart (figure[data-chart]) is replaced by an interactive Vega view (tooltips)
// built from the same spec, which sits inline in the page: no network request, so this also works
// from file://. A group's charts over time stay drawings; their specs are in the group's JSON.
(function () {
  "use strict";
  if (typeof window.vegaEmbed !== "function") return;
  document.querySelectorAll("figure[data-chart]").forEach(function (figure) {
    var source = figure.querySelector("script.chart-spec");
    var canvas = figure.querySelector(".chart-canvas");
    if (!source || !canvas) return;
    var spec;
    try { spec = JSON.parse(source.textContent); } catch (error) { return; }
    // As wide as the figure, axes and legend included, at any page width (the static drawings
    // come in two fixed sizes); the figure's width is read here, as the view is drawn detached.
    var width = Math.round(canvas.getBoundingClientRect().width);
    if (width > 0) {
      spec.width = width;
      spec.autosize = { type: "fit-x", contains: "padding" };
      // A phone lists the implementations one a line, as its static drawing does.
      if (width < 600 && spec.config && spec.config.legend) {
        spec.config = Object.assign({}, spec.config, { legend: Object.assign({}, spec.config.legend, { columns: 1 }) });
      }
    }
    var target = document.createElement("div");
    window.vegaEmbed(target, spec, { actions: false, renderer: "svg" }).then(function () {
      canvas.replaceChildren(target);  // swap only once the view exists; on failure the SVG stays
    }).catch(function () {});
  });
})();
