// The annotator pages (answers and frame checks): keyboard shortcuts, time per item, and saves that
// never fail silently. Works on whatever fragment htmx swapped into #work: every element with
// data-key is triggered by that key; the judgement form carries data-item-url and data-login-url.
//
// A save that does not reach the server (offline, server stopped), or that the server refuses
// (expired session, CSRF failure, error), keeps the item and the chosen label on screen with an
// error next to the buttons, and is retried with the same submission id (the server treats a repeat
// as a no-op, so nothing is duplicated). An expired session goes to the login page and back to the
// same item, where the kept label is sent again; the login page says that the session ended and
// that the label is kept, and the item page confirms once it is saved.
//
// Keys pressed while a request of the item is in flight (a save, "Back") are queued in order and
// applied to the item that comes next, with a visible "queued" note; if that request fails, they
// are dropped with a message saying which keys were not applied. No key press is ever lost silently.
(function () {
  "use strict";
  // Django's JavaScript catalogue (/jsi18n/, loaded by base.html): the page's language. Without it
  // (the script failed to load), English.
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  function say(format, values) {
    return format.replace(/%\((\w+)\)s/g, function (all, name) { return String(values[name]); });
  }
  var STORE = "qaeval.pendingSave";
  var pending = null;      // {user, item, url, params, choice, tries}
  var retryTimer = null;
  var retrying = false;
  var busy = null;         // the element whose request of #work (a save, "Back") is in flight
  var queue = [];          // keys pressed meanwhile, applied in order once it has landed
  var awaitingSettle = false;

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
    dropQueue(gettext("the save before them did not go through"));
    box.hidden = false;
    form.querySelectorAll("button[name]").forEach(function (b) {
      var chosen = pending && b.getAttribute("name") in pending.params && pending.params[b.getAttribute("name")] === b.value;
      b.classList.toggle("pending", !!chosen);
    });
  }

  // The chosen label in words ("Partially correct"), or "" when the form does not show it.
  function choiceLabel(params) {
    var form = judgeForm();
    var btn = form && params && Array.prototype.find.call(form.querySelectorAll("button[name]"), function (b) {
      return params[b.getAttribute("name")] === b.value;
    });
    return btn ? btn.textContent.replace(/^\s*\S\s*/, "").trim() : "";
  }

  function choiceWords() {
    var words = pending ? (pending.words || choiceLabel(pending.params)) : "";
    return words ? say(gettext("“%(words)s”"), {words: words}) : gettext("your judgement");
  }

  // A line under the item's buttons that is no error (role=status): a confirmation, a queued key.
  function note(cls, message) {
    var form = judgeForm();
    var box = document.querySelector("#work ." + cls);
    if (!message) { if (box) box.remove(); return; }
    if (!form) return;
    if (!box) {
      box = document.createElement("p");
      box.className = cls;
      box.setAttribute("role", "status");
      form.appendChild(box);
    }
    box.textContent = message;
  }

  function keyNames(keys) { return keys.map(function (k) { return k.toUpperCase(); }).join(", "); }

  // Keys queued behind a request that failed are not applied, and the page says so.
  function dropQueue(why) {
    if (!queue.length) return;
    var text = say(ngettext("Key %(keys)s not applied: %(why)s.", "Keys %(keys)s not applied: %(why)s.", queue.length),
                   {keys: keyNames(queue), why: why});
    queue = [];
    note("key-queue", text);
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
    showError(say(navigator.onLine
      ? gettext("Not saved: %(reason)s. %(choice)s is kept and will be sent again automatically in %(seconds)s s.")
      : gettext("Not saved: %(reason)s. %(choice)s is kept and will be sent again automatically when the connection is back."),
      {reason: reason, choice: choiceWords(), seconds: Math.round(delay / 1000)}));
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
    showError(say(gettext("Not saved: your session has ended. Taking you to the login page; %(choice)s is kept and sent once you are back."),
                  {choice: choiceWords()}));
    var words = pending ? (pending.words || choiceLabel(pending.params)) : "";
    window.location.assign(login + "?next=" + encodeURIComponent(back) + "&ended=1" +
                           (words ? "&kept=" + encodeURIComponent(words) : ""));
  }

  // A 403 is a CSRF failure or a lost session: ask the server which, with a plain GET of this item.
  function checkSession() {
    var form = judgeForm();
    fetch(form.dataset.itemUrl, {credentials: "same-origin", headers: {"HX-Request": "true"}})
      .then(function (resp) {
        if (resp.redirected && new URL(resp.url).pathname === form.dataset.loginUrl) return goToLogin();
        if (!resp.ok) return showError(say(gettext("Not saved: the server refused it (%(status)s). %(choice)s is kept; reload the page to try again."),
                                            {status: resp.status, choice: choiceWords()}));
        return resp.text().then(function (html) {
          var token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html);
          if (!token || pending.tries > 2) {
            showError(say(gettext("Not saved: the security token was refused. %(choice)s is kept; reload the page."), {choice: choiceWords()}));
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
      .catch(function () { scheduleRetry(gettext("the server cannot be reached")); });
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
        if (resp.ok && !resp.redirected) {
          note("save-confirm", say(gettext("Saved: %(choice)s on the item you were on, kept while you logged in again."),
                                   {choice: stored.words ? say(gettext("“%(words)s”"), {words: stored.words}) : gettext("your judgement")}));
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
      pending.restored = true;
      showError(say(gettext("Sending %(choice)s, kept from before you logged in…"), {choice: choiceWords()}));
      retry();
    } else if (stored && stored.user === currentUser() && form) {
      sendElsewhere(stored);
    } else if (stored) {
      clearPending();
    }
  });
  document.body.addEventListener("htmx:afterSwap", stamp);
  // Back to this page from another one: a copy from the back/forward cache shows the item, progress
  // and submission id of when it was left; reload it from the server (the page is never cached).
  window.addEventListener("pageshow", function (evt) {
    if (evt.persisted && document.getElementById("work")) window.location.reload();
  });

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
               params: copy, choice: key, tries: sameItem ? pending.tries : 0, words: choiceLabel(copy),
               restored: sameItem ? !!pending.restored : false, fresh: sameItem ? !!pending.fresh : false};
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
    if (xhr.status === 409 && xhr.getResponseHeader("X-Submission-Conflict") && !pending.fresh) {
      // A page restored from before (Back, the back/forward cache) carried a submission id that an
      // earlier save used: the key the annotator pressed now is a new judgement, sent with a fresh id.
      var fresh = newSubmissionId();
      form.querySelector('input[name="submission_id"]').value = fresh;
      pending.params["submission_id"] = fresh;
      pending.fresh = true;
      remember();
      return retry();
    }
    if (xhr.status >= 500) return scheduleRetry(say(gettext("the server answered with an error (%(status)s)"), {status: xhr.status}));
    var text = (xhr.responseText || "").slice(0, 300);
    showError(say(gettext("Not saved (%(status)s): %(text)s"), {status: xhr.status, text: text}));
    clearPending();
  });

  document.body.addEventListener("htmx:afterSwap", function (evt) {
    if (isSave(evt) && evt.detail.requestConfig && evt.detail.requestConfig.verb === "post" &&
        evt.detail.xhr.status < 300) {
      var restored = pending && pending.restored ? pending.words : null;
      clearPending();
      if (restored !== null) {
        note("save-confirm", say(gettext("Saved: %(choice)s, kept while you logged in again."),
                                 {choice: restored ? say(gettext("“%(words)s”"), {words: restored}) : gettext("your judgement")}));
      }
    }
  });

  // The queue of keys pressed while a request of the item is in flight.
  function fromWork(evt) {
    var elt = evt.detail && evt.detail.elt;
    return !!(elt && elt.closest && elt.closest("#work") && (elt.matches("form[data-item-url]") || elt.hasAttribute("data-key")));
  }
  // (by afterRequest the requesting element has been swapped out of #work and htmx names the target
  // instead: the request's own configuration still names it)
  document.body.addEventListener("htmx:beforeRequest", function (evt) { if (fromWork(evt)) busy = evt.detail.elt; });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    var config = evt.detail.requestConfig;
    if (!busy || (config && config.elt ? config.elt : evt.detail.elt) !== busy) return;
    busy = null;
    if (!evt.detail.successful) return dropQueue(gettext("the request before them did not go through"));
    // The next key waits until htmx has settled the new item (before that, its form is not yet
    // htmx's and a click would submit it as a plain form); a request that swaps nothing drains later.
    awaitingSettle = true;
    setTimeout(function () { if (awaitingSettle) { awaitingSettle = false; drain(); } }, 300);
  });
  document.body.addEventListener("htmx:afterSettle", function () {
    if (awaitingSettle) { awaitingSettle = false; drain(); }
  });

  function drain() {
    if (pending) return dropQueue(gettext("the save before them is not confirmed"));
    if (busy || !queue.length) { if (!queue.length) note("key-queue", ""); return; }
    var key = queue.shift();
    note("key-queue", queue.length ? say(gettext("Queued: %(keys)s (applied to the next items in turn)"), {keys: keyNames(queue)}) : "");
    press(key);
  }

  function press(key) {
    var target = document.querySelector('#work [data-key="' + CSS.escape(key) + '"]');
    if (!target || target.disabled) {
      note("key-queue", say(gettext("Key %(key)s not applied: nothing answers it on this page."), {key: key.toUpperCase()}) +
                         (queue.length ? " " + say(gettext("Queued: %(keys)s"), {keys: keyNames(queue)}) : ""));
      queue = [];
      return;
    }
    target.click();
  }

  document.body.addEventListener("htmx:sendError", function (evt) {
    if (!pending || !isSave(evt)) return;
    scheduleRetry(navigator.onLine ? gettext("the server cannot be reached") : gettext("you are offline"));
  });
  document.body.addEventListener("htmx:timeout", function (evt) {
    if (pending && isSave(evt)) scheduleRetry(gettext("the server did not answer in time"));
  });
  window.addEventListener("online", function () { if (pending) retry(); });
  window.addEventListener("offline", function () {
    if (pending) showError(say(gettext("Not saved: you are offline. %(choice)s is kept and will be sent when the connection is back."), {choice: choiceWords()}));
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
    if (!target) return;
    if (busy && target.closest("form[data-item-url]")) {
      // A request of this item is in flight: the key is for the item that comes next.
      evt.preventDefault();
      queue.push(key);
      note("key-queue", say(ngettext("Queued: %(keys)s (applied to the next item)", "Queued: %(keys)s (applied to the next items in turn)", queue.length),
                           {keys: keyNames(queue)}));
      return;
    }
    if (target.disabled) return;
    evt.preventDefault();
    target.click();
  });
})();
