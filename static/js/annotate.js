// Keyboard shortcuts and time-per-item for the annotator page. Works on whatever fragment htmx
// swapped in: every element with data-key is triggered by that key.
(function () {
  "use strict";
  function stamp() {
    var item = document.querySelector("#work .item");
    if (item && !item.dataset.shownAt) item.dataset.shownAt = String(performance.now());
  }
  document.addEventListener("DOMContentLoaded", stamp);
  document.body.addEventListener("htmx:afterSwap", stamp);
  // Put the time spent on this item into the form just before it is sent.
  document.body.addEventListener("htmx:configRequest", function (evt) {
    var item = document.querySelector("#work .item");
    if (item && item.dataset.shownAt && evt.detail.verb === "post") {
      evt.detail.parameters["seconds"] = ((performance.now() - Number(item.dataset.shownAt)) / 1000).toFixed(2);
    }
  });
  document.addEventListener("keydown", function (evt) {
    if (evt.ctrlKey || evt.metaKey || evt.altKey || evt.repeat) return;
    var t = evt.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    var key = evt.key.toLowerCase();
    var target = document.querySelector('#work [data-key="' + CSS.escape(key) + '"]');
    if (!target || target.disabled) return;
    evt.preventDefault();
    target.click();
  });
})();
