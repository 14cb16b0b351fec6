// The review panel of a result page: writes carry the token printed by `promptum view
// --review` (kept in this origin's localStorage, read once from the URL's #token=...), and
// every text from the server is written with textContent only.
(function () {
  "use strict";
  var KEY = "promptum-token";
  // What the last save said, kept across the reload that shows the saved review.
  var SAVED = "promptum-saved";
  var LONGEST = 300;  // characters of an answer that is not JSON (a proxy's page) shown
  var found = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (found) {
    localStorage.setItem(KEY, decodeURIComponent(found[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  var kept = document.getElementById("token-kept");
  if (kept) { kept.hidden = !localStorage.getItem(KEY); }
  var form = document.getElementById("review-form");
  if (!form) { return; }
  var tokenInput = document.getElementById("token");
  var reviewStatus = document.getElementById("review-status");
  if (!localStorage.getItem(KEY)) { document.getElementById("token-row").hidden = false; }
  var saved = sessionStorage.getItem(SAVED);
  if (saved) {
    sessionStorage.removeItem(SAVED);
    reviewStatus.textContent = saved;
  }

  function token() {
    if (tokenInput.value) { localStorage.setItem(KEY, tokenInput.value); }
    return localStorage.getItem(KEY) || "";
  }

  function target() {
    return {
      run_id: form.dataset.run, case: form.dataset.case, variant: form.dataset.variant,
      model: form.dataset.model, repeat: Number(form.dataset.repeat)
    };
  }

  function parsed(text) {
    try { return JSON.parse(text); } catch (ignored) { return null; }
  }

  // Every way a save ends is said in `status`: what was saved, or why not.
  function send(url, body, status) {
    status.textContent = "saving…";
    var headers = { "Content-Type": "application/json" };
    headers[form.dataset.header] = token();
    return fetch(url, { method: "POST", headers: headers, body: JSON.stringify(body),
                        credentials: "omit", cache: "no-store" })
      .then(function (response) {
        return response.text().then(function (text) {
          var data = parsed(text);
          if (!response.ok) {
            var why = data && data.error ? data.error
              : (text.trim().slice(0, LONGEST) || response.statusText || "refused");
            status.textContent = "not saved (" + response.status + "): " + why;
            if (response.status === 403) { document.getElementById("token-row").hidden = false; }
            return null;
          }
          if (!data) {
            status.textContent = "saved, but the viewer's answer was not JSON: reload to check";
            return null;
          }
          return data;
        });
      })
      .catch(function (error) {
        status.textContent = "not sent (" + error.message + "): is the viewer still running?";
        return null;
      });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var body = target();
    var verdict = form.querySelector("input[name=verdict]:checked");
    var scoreInput = document.getElementById("score");
    var score = scoreInput.value.trim() === "" ? null : Number(scoreInput.value);
    // The form has novalidate: the browser's own check would stop the send without a word
    // here. A number input holding text reads as "" and says so in badInput.
    if (scoreInput.validity.badInput || (score !== null && !(score >= 0 && score <= 1))) {
      reviewStatus.textContent = "not saved: the score must be a number from 0 to 1, or left empty";
      return;
    }
    body.criterion = document.getElementById("criterion").value || null;
    body.verdict = verdict ? verdict.value : null;
    body.score = score;
    body.override = document.getElementById("override").value || null;
    body.reason = document.getElementById("reason").value || null;
    body.comment = document.getElementById("comment").value || null;
    send("/api/reviews", body, reviewStatus).then(function (data) {
      if (data) {
        sessionStorage.setItem(SAVED, "saved your review: " + data.label);
        location.reload();  // the reviews table, as the store now holds it
      }
    });
  });

  var save = document.getElementById("save-form");
  if (save) {
    save.addEventListener("submit", function (event) {
      event.preventDefault();
      var body = target();
      body.sha256 = save.dataset.sha;
      body.id = document.getElementById("case-id").value;
      body.kind = document.getElementById("kind").value;
      body.value = document.getElementById("expect").value;
      body.new_file = document.getElementById("new-file").value || null;
      var status = document.getElementById("save-status");
      send("/api/save-case", body, status).then(function (data) {
        if (data) { status.textContent = "saved " + data.id + " to " + data.file + ":" + data.line; }
      });
    });
  }

  document.addEventListener("keydown", function (event) {
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
    if (event.key === "Escape" && typing) {
      event.target.blur();
    } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      // The form being typed in: Ctrl+Enter in "save as case" saves the case, not a review.
      (save && save.contains(event.target) ? save : form).requestSubmit();
    } else if (!typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      if (event.key === "g") { document.getElementById("verdict-good").checked = true; }
      else if (event.key === "b") { document.getElementById("verdict-bad").checked = true; }
      else if (event.key === "c") { event.preventDefault(); document.getElementById("comment").focus(); }
    }
  });
})();
