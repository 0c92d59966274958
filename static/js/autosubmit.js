// Submit the form of any <select data-autosubmit> when its value changes (no inline handlers: CSP).
document.addEventListener("change", function (evt) {
  "use strict";
  var el = evt.target;
  if (el && el.matches && el.matches("select[data-autosubmit]") && el.form) el.form.submit();
});
