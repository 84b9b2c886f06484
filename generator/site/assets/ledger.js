// The claims index: sort by a column (click its header), filter by kind, status, testbed,
// freshness and text. Without JavaScript the table is still complete, just static.
(function () {
  "use strict";

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    var number = parseFloat(raw);
    return isNaN(number) ? -Infinity : number;
  }

  function setup(root) {
    var table = root.querySelector("table");
    var filters = root.previousElementSibling;
    if (!table || table.hasAttribute("data-ledger-ready")) return;
    table.setAttribute("data-ledger-ready", "");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);

    headers.forEach(function (th, index) {
      th.setAttribute("tabindex", "0");
      th.title = "sort by " + th.textContent;
      function sort() {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        var numeric = th.getAttribute("data-sort-type") === "number";
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var sorted = rows.slice().sort(function (a, b) {
          var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        sorted.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) { if (event.key === "Enter") sort(); });
    });

    if (!filters || !filters.classList.contains("ledger-filters")) return;
    filters.hidden = false;
    var controls = Array.prototype.slice.call(filters.querySelectorAll("[data-filter]"));
    var shown = filters.querySelector(".ledger-shown");
    function apply() {
      var count = 0;
      rows.forEach(function (row) {
        var visible = controls.every(function (control) {
          var wanted = control.value.trim().toLowerCase();
          if (!wanted) return true;
          var name = control.getAttribute("data-filter");
          if (name === "text") return row.textContent.toLowerCase().indexOf(wanted) !== -1;
          return (row.getAttribute("data-" + name) || "").toLowerCase() === wanted;
        });
        row.hidden = !visible;
        if (visible) count += 1;
      });
      if (shown) shown.textContent = count + " of " + rows.length + " claims";
    }
    controls.forEach(function (control) { control.addEventListener("input", apply); });
    var params = new URLSearchParams(window.location.hash.slice(1));
    controls.forEach(function (control) {
      var value = params.get(control.getAttribute("data-filter"));
      if (value) control.value = value;
    });
    apply();
  }

  function init() {
    document.querySelectorAll(".ledger-index").forEach(setup);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
