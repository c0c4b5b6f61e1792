// The records ledger without a reload: filter this page's rows by GPU, evidence and source. Without
// JavaScript the filter links above the table lead to the same views as static pages.
(function () {
  "use strict";
  var LEVELS = ["reported", "reproducible", "verified", "replicated"];
  var form = document.getElementById("ledger-filter");
  if (!form) return;
  var count = document.getElementById("ledger-count");
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.ledger tbody tr"));
  function apply() {
    var gpu = form.elements.gpu.value, evidence = form.elements.evidence.value, source = form.elements.source.checked;
    var minimum = evidence ? LEVELS.indexOf(evidence) : 0, shown = 0;
    rows.forEach(function (row) {
      var keep = (!gpu || row.getAttribute("data-gpu") === gpu) &&
        LEVELS.indexOf(row.getAttribute("data-evidence")) >= minimum &&
        (!source || row.getAttribute("data-source") === "yes");
      row.hidden = !keep;
      if (keep) shown += 1;
    });
    count.textContent = shown + " of " + rows.length + " rows on this page";
  }
  form.hidden = false;
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
})();
