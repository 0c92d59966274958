// Attribute check: a click (or its key) sets the group's hidden input; with "No", a click on a word
// of the passage names the right trigger. Save (Enter) is enabled once the answer is complete.
(function () {
  "use strict";
  function ready(form) {
    var v = form.querySelector('input[name="trigger_verdict"]').value;
    var d = form.querySelector('input[name="dist_class"]').value;
    if (v === "absent") return true;
    if (!v || !d) return false;
    return v !== "other" || form.querySelector('input[name="trigger_start"]').value !== "";
  }
  function refresh(form) {
    var save = form.querySelector("#save-check");
    if (save) save.disabled = !ready(form);
    var hint = document.getElementById("attribute-hint");
    if (hint) hint.hidden = form.querySelector('input[name="trigger_verdict"]').value !== "other";
  }
  document.body.addEventListener("click", function (evt) {
    var form = document.getElementById("attribute-check-form");
    if (!form) return;
    var btn = evt.target.closest("#work .rate");
    if (btn) {
      var group = btn.dataset.group;
      form.querySelector('input[name="' + group + '"]').value = btn.dataset.value;
      form.querySelectorAll('.rate[data-group="' + group + '"]').forEach(function (b) {
        b.classList.toggle("active", b === btn);
      });
      refresh(form);
      return;
    }
    var word = evt.target.closest("#passage .w");
    if (word && form.querySelector('input[name="trigger_verdict"]').value === "other") {
      form.querySelector('input[name="trigger_start"]').value = word.dataset.start;
      form.querySelector('input[name="trigger_end"]').value = word.dataset.end;
      document.querySelectorAll("#passage .chosen").forEach(function (w) { w.classList.remove("chosen"); });
      word.classList.add("chosen");
      refresh(form);
    }
  });
})();
