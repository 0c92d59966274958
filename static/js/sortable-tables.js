// Sortable report tables: click a column header of a table.sortable to sort its body by that
// column (numbers by their data-sort value, text otherwise; empty cells last); click again to
// reverse. No dependencies, no inline script.
(function () {
  "use strict";
  function cellValue(row, index) {
    var cell = row.children[index];
    if (!cell) return { empty: true };
    var key = cell.getAttribute("data-sort");
    if (key !== null) {
      if (key === "") return { empty: true };
      return { number: parseFloat(key) };
    }
    return { text: cell.textContent.trim().toLowerCase() };
  }
  function compare(a, b) {
    if (a.empty || b.empty) return a.empty === b.empty ? 0 : (a.empty ? 1 : -1);
    if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
    return String(a.text || a.number).localeCompare(String(b.text || b.number));
  }
  function sortBy(table, index, header) {
    var body = table.tBodies[0];
    if (!body) return;
    var descending = header.getAttribute("aria-sort") === "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var a = cellValue(r1, index), b = cellValue(r2, index);
      if (a.empty || b.empty) return compare(a, b);  // empty cells stay last either way
      var c = compare(a, b);
      return descending ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    table.querySelectorAll("thead th[aria-sort]").forEach(function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }
  function init() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      var head = table.tHead && table.tHead.rows[0];
      if (!head) return;
      Array.prototype.forEach.call(head.cells, function (th, index) {
        th.classList.add("sort-header");
        th.setAttribute("tabindex", "0");
        th.setAttribute("role", "button");
        th.title = (th.title ? th.title + " · " : "") + (window.gettext ? window.gettext("click to sort") : "click to sort");
        th.addEventListener("click", function () { sortBy(table, index, th); });
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, index, th); }
        });
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
