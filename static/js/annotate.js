// The annotator pages (answers and frame checks): keyboard shortcuts, time per item, and saves that
// never fail silently. Works on whatever fragment htmx swapped into #work: every element with
// data-key is triggered by that key; the judgement form carries data-item-url and data-login-url.
//
// A save that does not reach the server (offline, server stopped), or that the server refuses
// (expired session, CSRF failure, error), keeps the item and the chosen label on screen with an
// error next to the buttons, and is retried with the same submission id (the server treats a repeat
// as a no-op, so nothing is duplicated). An expired session goes to the login page and back to the
// same item, where the kept label is sent again.
(function () {
  "use strict";
  var STORE = "qaeval.pendingSave";
  var pending = null;      // {user, item, url, params, choice, tries}
  var retryTimer = null;
  var retrying = false;

  function work() { return document.getElementById("work"); }
  function judgeForm() { return document.querySelector("#work form[data-item-url]"); }
  function currentUser() { var w = work(); return w ? w.dataset.user : ""; }

  // htmx's parameters object is a proxy over FormData that has no `in` operator.
  function given(params, name) { return params[name] !== undefined && params[name] !== null; }

  function stamp() {
    var item = document.querySelector("#work .item");
    if (item && !item.dataset.shownAt) item.dataset.shownAt = String(performance.now());
  }

  function newSubmissionId() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function statusBox(form) {
    var box = form.querySelector(".save-status");
    if (!box) {
      box = document.createElement("div");
      box.className = "save-status";
      box.setAttribute("role", "alert");
      form.appendChild(box);
    }
    return box;
  }

  function showError(message) {
    var form = judgeForm();
    if (!form) return;
    var box = statusBox(form);
    box.textContent = message;
    box.hidden = false;
    form.querySelectorAll("button[name]").forEach(function (b) {
      var chosen = pending && b.getAttribute("name") in pending.params && pending.params[b.getAttribute("name")] === b.value;
      b.classList.toggle("pending", !!chosen);
    });
  }

  function choiceWords() {
    if (!pending) return "your judgement";
    var form = judgeForm();
    var btn = form && Array.prototype.find.call(form.querySelectorAll("button[name]"), function (b) {
      return pending.params[b.getAttribute("name")] === b.value;
    });
    var words = btn ? btn.textContent.replace(/^\s*\S\s*/, "").trim() : "";
    return words ? "“" + words + "”" : "your judgement";
  }

  function remember() {
    try {
      if (pending) sessionStorage.setItem(STORE, JSON.stringify(pending));
      else sessionStorage.removeItem(STORE);
    } catch (e) { /* private mode: the in-page copy still works */ }
  }

  function clearPending() {
    pending = null;
    retrying = false;
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    remember();
  }

  function scheduleRetry(reason) {
    pending.tries += 1;
    var delay = Math.min(15000, 1000 * Math.pow(2, Math.min(pending.tries, 4)));
    showError("Not saved: " + reason + ". " + choiceWords() + " is kept and will be sent again automatically" +
              (navigator.onLine ? " in " + Math.round(delay / 1000) + " s." : " when the connection is back."));
    if (retryTimer) clearTimeout(retryTimer);
    if (navigator.onLine) retryTimer = setTimeout(retry, delay);
  }

  function retry() {
    retryTimer = null;
    var form = judgeForm();
    if (!pending || !form || form.querySelector('input[name="item"]').value !== String(pending.item)) return;
    retrying = true;
    htmx.ajax("POST", pending.url, {source: form, target: "#work", swap: "innerHTML", values: pending.params});
  }

  function goToLogin() {
    remember();
    var form = judgeForm();
    var back = form ? form.dataset.itemUrl : window.location.pathname;
    var login = form ? form.dataset.loginUrl : "/login/";
    showError("Not saved: your session has expired. Taking you to the login page; " + choiceWords() +
              " is kept and sent once you are back.");
    window.location.assign(login + "?next=" + encodeURIComponent(back));
  }

  // A 403 is a CSRF failure or a lost session: ask the server which, with a plain GET of this item.
  function checkSession() {
    var form = judgeForm();
    fetch(form.dataset.itemUrl, {credentials: "same-origin", headers: {"HX-Request": "true"}})
      .then(function (resp) {
        if (resp.redirected && new URL(resp.url).pathname === form.dataset.loginUrl) return goToLogin();
        if (!resp.ok) return showError("Not saved: the server refused it (" + resp.status + "). " + choiceWords() + " is kept; reload the page to try again.");
        return resp.text().then(function (html) {
          var token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html);
          if (!token || pending.tries > 2) {
            showError("Not saved: the security token was refused. " + choiceWords() + " is kept; reload the page.");
            return;
          }
          document.querySelectorAll('input[name="csrfmiddlewaretoken"]').forEach(function (i) { i.value = token[1]; });
          var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
          headers["X-CSRFToken"] = token[1];
          document.body.setAttribute("hx-headers", JSON.stringify(headers));
          pending.tries += 1;
          retry();
        });
      })
      .catch(function () { scheduleRetry("the server cannot be reached"); });
  }

  // A label kept for another item (the annotator moved on while it was unsaved): send it in the
  // background with its submission id; it stays kept until the server has it.
  function sendElsewhere(stored) {
    var body = new FormData();
    Object.keys(stored.params).forEach(function (k) { body.append(k, stored.params[k]); });
    var token = document.querySelector('input[name="csrfmiddlewaretoken"]');
    fetch(stored.url, {method: "POST", body: body, credentials: "same-origin",
                       headers: {"HX-Request": "true", "X-CSRFToken": token ? token.value : ""}})
      .then(function (resp) {
        var hopeless = resp.status >= 400 && resp.status < 500 && resp.status !== 401 && resp.status !== 403;
        if ((resp.ok && !resp.redirected) || hopeless) {
          try { sessionStorage.removeItem(STORE); } catch (e) { /* ignore */ }
        }
      })
      .catch(function () { /* still kept in sessionStorage: sent on a later page */ });
  }

  // Only the judgement form's requests (not the flag form's, not "Back") are saves.
  // (swap events carry the target as detail.elt; the requesting element is requestConfig.elt)
  function isSave(evt) {
    var config = evt.detail && evt.detail.requestConfig;
    var elt = config && config.elt ? config.elt : evt.detail && evt.detail.elt;
    return !!(elt && elt.matches && elt.matches("form[data-item-url]"));
  }

  document.addEventListener("DOMContentLoaded", function () {
    stamp();
    var stored = null;
    try { stored = JSON.parse(sessionStorage.getItem(STORE) || "null"); } catch (e) { stored = null; }
    var form = judgeForm();
    if (stored && form && stored.user === currentUser() &&
        form.querySelector('input[name="item"]').value === String(stored.item)) {
      pending = stored;
      pending.tries = 0;
      showError("Sending " + choiceWords() + ", kept from before you logged in…");
      retry();
    } else if (stored && stored.user === currentUser() && form) {
      sendElsewhere(stored);
    } else if (stored) {
      clearPending();
    }
  });
  document.body.addEventListener("htmx:afterSwap", stamp);

  // Time spent on the item, and the pending save this request carries.
  document.body.addEventListener("htmx:configRequest", function (evt) {
    if (evt.detail.verb !== "post" || !evt.detail.elt.matches("#work form[data-item-url]")) return;
    var form = evt.detail.elt;
    var params = evt.detail.parameters;
    if (retrying && pending) {
      Object.keys(pending.params).forEach(function (k) { params[k] = pending.params[k]; });
      retrying = false;
      return;
    }
    var item = document.querySelector("#work .item");
    if (item && item.dataset.shownAt) {
      params["seconds"] = ((performance.now() - Number(item.dataset.shownAt)) / 1000).toFixed(2);
    }
    // The choice: every field of the form but the bookkeeping ones (the label button, or the
    // frame check's two ratings).
    var META = ["csrfmiddlewaretoken", "item", "submission_id", "seconds", "revisit", "review"];
    var choice = {};
    form.querySelectorAll("[name]").forEach(function (field) {
      var name = field.getAttribute("name");
      if (META.indexOf(name) < 0 && given(params, name)) choice[name] = String(params[name]);
    });
    var key = JSON.stringify(choice);
    var sameItem = pending && String(pending.item) === String(params["item"]);
    if (sameItem && pending.choice !== key) {
      // A different choice while an earlier one may have reached the server: a new submission.
      var fresh = newSubmissionId();
      form.querySelector('input[name="submission_id"]').value = fresh;
      params["submission_id"] = fresh;
    }
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    var copy = {};
    ["item", "submission_id", "seconds", "revisit", "review"].forEach(function (k) { if (given(params, k)) copy[k] = String(params[k]); });
    Object.keys(choice).forEach(function (k) { copy[k] = choice[k]; });
    pending = {user: currentUser(), item: String(params["item"]), url: form.getAttribute("hx-post"),
               params: copy, choice: key, tries: sameItem ? pending.tries : 0};
    remember();
  });

  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    if (!pending || !isSave(evt) || !evt.detail.requestConfig || evt.detail.requestConfig.verb !== "post") return;
    var xhr = evt.detail.xhr;
    var form = judgeForm();
    if (form && xhr.responseURL && new URL(xhr.responseURL).pathname === form.dataset.loginUrl) {
      evt.detail.shouldSwap = false;
      return goToLogin();
    }
    if (xhr.status < 400) return;
    evt.detail.shouldSwap = false;
    if (xhr.status === 403 || xhr.status === 401) return checkSession();
    if (xhr.status >= 500) return scheduleRetry("the server answered with an error (" + xhr.status + ")");
    var text = (xhr.responseText || "").slice(0, 300);
    showError("Not saved (" + xhr.status + "): " + text);
    clearPending();
  });

  document.body.addEventListener("htmx:afterSwap", function (evt) {
    if (isSave(evt) && evt.detail.requestConfig && evt.detail.requestConfig.verb === "post" &&
        evt.detail.xhr.status < 300) clearPending();
  });

  document.body.addEventListener("htmx:sendError", function (evt) {
    if (!pending || !isSave(evt)) return;
    scheduleRetry(navigator.onLine ? "the server cannot be reached" : "you are offline");
  });
  document.body.addEventListener("htmx:timeout", function (evt) {
    if (pending && isSave(evt)) scheduleRetry("the server did not answer in time");
  });
  window.addEventListener("online", function () { if (pending) retry(); });
  window.addEventListener("offline", function () {
    if (pending) showError("Not saved: you are offline. " + choiceWords() + " is kept and will be sent when the connection is back.");
  });

  // Buttons with data-dialog open that <dialog> (the "?" shortcut overlay).
  document.addEventListener("click", function (evt) {
    var opener = evt.target.closest && evt.target.closest("[data-dialog]");
    var dialog = opener && document.getElementById(opener.dataset.dialog);
    if (dialog && !dialog.open) dialog.showModal();
    var closer = evt.target.closest && evt.target.closest("[data-close-dialog]");
    if (closer && closer.closest("dialog")) closer.closest("dialog").close();
  });
  // A flag sent: close its dialog (the answer is shown in #flag-status).
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    var form = evt.detail.elt;
    if (form && form.matches && form.matches("form[data-flag-form]") && evt.detail.successful) {
      form.reset();
      var dialog = form.closest("dialog");
      if (dialog) dialog.close();
    }
  });

  document.addEventListener("keydown", function (evt) {
    if (evt.ctrlKey || evt.metaKey || evt.altKey || evt.repeat) return;
    var t = evt.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    if (document.querySelector("dialog[open]")) return;  // the overlay is open: Esc closes it
    var key = evt.key.toLowerCase();
    var target = document.querySelector('#work [data-key="' + CSS.escape(key) + '"]');
    if (!target || target.disabled) return;
    evt.preventDefault();
    target.click();
  });
})();
