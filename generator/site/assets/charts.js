// Draw each chart from its embedded Vega-Lite spec with the bundled vega-embed (no network).
// Until then, and without JavaScript, the static SVG beside it is what shows.
(function () {
  "use strict";

  function dark() {
    return document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  function draw(figure) {
    var view = figure.querySelector(".ledger-chart-view");
    var source = figure.querySelector("script.ledger-chart-spec");
    if (!view || !source || typeof window.vegaEmbed !== "function") return;
    var spec = JSON.parse(source.textContent);
    var options = { actions: false, renderer: "svg" };
    if (dark()) options.theme = "dark";
    window.vegaEmbed(view, spec, options).then(function (result) {
      if (figure.ledgerView) figure.ledgerView.finalize();
      figure.ledgerView = result;
      figure.classList.add("ledger-chart--live");
    }).catch(function (error) {
      figure.classList.remove("ledger-chart--live");
      console.warn("chart " + figure.getAttribute("data-chart") + " kept its static image:", error);
    });
  }

  function drawAll() {
    document.querySelectorAll("figure.ledger-chart").forEach(draw);
  }

  drawAll();
  // Material's palette toggle flips data-md-color-scheme: redraw with the matching theme.
  new MutationObserver(drawAll).observe(document.body, {
    attributes: true, attributeFilter: ["data-md-color-scheme"],
  });
})();
