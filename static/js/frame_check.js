// Two-step rating: a click (or its key) sets the group's hidden input; once both groups were
// chosen during this visit the form is sent. Enter (the Save button) sends what is shown.
(function () {
  "use strict";
  document.body.addEventListener("click", function (evt) {
    var btn = evt.target.closest("#work .rate");
    if (!btn) return;
    var form = document.getElementById("frame-check-form");
    var group = btn.dataset.group;
    form.querySelector('input[name="' + group + '_rating"]').value = btn.dataset.value;
    form.querySelectorAll('.rate[data-group="' + group + '"]').forEach(function (b) {
      b.classList.toggle("active", b === btn);
      b.setAttribute("aria-pressed", b === btn ? "true" : "false");
    });
    form.dataset["chosen_" + group] = "1";
    var save = form.querySelector("#save-check");
    var ready = form.querySelector('input[name="frame_rating"]').value && form.querySelector('input[name="fe_rating"]').value;
    if (save) save.disabled = !ready;
    if (form.dataset.chosen_frame && form.dataset.chosen_fe && !form.dataset.sent) {
      form.dataset.sent = "1";
      form.requestSubmit();
    }
  });
})();
