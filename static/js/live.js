// The live conclusions page: its panel is replaced every few seconds (htmx); the "Details" a reader
// opened stay open across the replacements.
(function () {
  "use strict";
  var open = {};
  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    if (!evt.detail.target || evt.detail.target.id !== "conclusions") return;
    open = {};
    evt.detail.target.querySelectorAll("details[id]").forEach(function (d) { open[d.id] = d.open; });
  });
  document.body.addEventListener("htmx:afterSwap", function () {
    Object.keys(open).forEach(function (id) {
      var d = document.getElementById(id);
      if (d) d.open = open[id];
    });
  });
})();
