// The review panel of a result page: writes carry the token printed by `promptum view
// --review` (kept in this origin's localStorage, read once from the URL's #token=...), and
// every text from the server is written with textContent only.
(function () {
  "use strict";
  var KEY = "promptum-token";
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
  if (!localStorage.getItem(KEY)) { document.getElementById("token-row").hidden = false; }

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

  function send(url, body, status) {
    status.textContent = "saving…";
    var headers = { "Content-Type": "application/json" };
    headers[form.dataset.header] = token();
    return fetch(url, { method: "POST", headers: headers, body: JSON.stringify(body),
                        credentials: "omit", cache: "no-store" })
      .then(function (response) {
        return response.json().then(function (data) {
          if (!response.ok) {
            status.textContent = response.status + ": " + (data.error || "refused");
            if (response.status === 403) { document.getElementById("token-row").hidden = false; }
            return null;
          }
          return data;
        });
      })
      .catch(function (error) { status.textContent = "not sent: " + error; return null; });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var body = target();
    var verdict = form.querySelector("input[name=verdict]:checked");
    var score = document.getElementById("score").value;
    body.criterion = document.getElementById("criterion").value || null;
    body.verdict = verdict ? verdict.value : null;
    body.score = score === "" ? null : Number(score);
    body.override = document.getElementById("override").value || null;
    body.reason = document.getElementById("reason").value || null;
    body.comment = document.getElementById("comment").value || null;
    send("/api/reviews", body, document.getElementById("review-status")).then(function (data) {
      if (data) { location.reload(); }
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
        if (data) { status.textContent = "saved " + data.id + " in " + data.file; }
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
