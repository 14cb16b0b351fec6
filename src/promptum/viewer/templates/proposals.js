// The review of proposed cases: each row kept or dropped, its expectation edited; "write
// kept cases" sends the drops and the changed texts with the token printed by `promptum
// view --review FILE` (kept in localStorage, read once from #token=...). Every text from the
// server is written with textContent only.
(function () {
  "use strict";
  var KEY = "promptum-token";
  var found = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (found) {
    localStorage.setItem(KEY, decodeURIComponent(found[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  var form = document.getElementById("proposals-form");
  var status = document.getElementById("write-status");
  var tokenInput = document.getElementById("token");
  if (!form || !status) { return; }
  if (!localStorage.getItem(KEY)) { document.getElementById("token-row").hidden = false; }

  function token() {
    if (tokenInput.value) { localStorage.setItem(KEY, tokenInput.value); }
    return localStorage.getItem(KEY) || "";
  }

  // Only what the reviewer changed is sent: the ids dropped and the texts edited.
  function decisions() {
    var drop = [];
    var edits = {};
    form.querySelectorAll("tr.proposal").forEach(function (row) {
      var id = row.dataset.id;
      if (row.querySelector("input.drop").checked) { drop.push(id); return; }
      var edit = {};
      var behavior = row.querySelector("textarea.behavior");
      if (behavior && behavior.value !== behavior.dataset.original) {
        edit.expected_behavior = behavior.value;
      }
      row.querySelectorAll("input.check-value").forEach(function (input) {
        if (input.value !== input.dataset.original) {
          edit.checks = edit.checks || {};
          edit.checks[input.dataset.index] = input.value;
        }
      });
      if (Object.keys(edit).length) { edits[id] = edit; }
    });
    return { sha256: form.dataset.sha, target_sha256: form.dataset.targetSha || null,
             drop: drop, edits: edits };
  }

  function said(response, text) {
    var data = null;
    try { data = JSON.parse(text); } catch (ignored) { data = null; }
    if (!response.ok) {
      status.textContent = "not written (" + response.status + "): " +
        (data && data.error ? data.error : text.trim().slice(0, 300) || response.statusText);
      if (response.status === 403) { document.getElementById("token-row").hidden = false; }
      return;
    }
    var renamed = Object.keys(data.renamed).map(function (id) {
      return id + " as " + data.renamed[id];
    });
    status.textContent = "wrote " + data.kept.length + " kept cases to " + data.file +
      " (" + data.dropped.length + " dropped" +
      (renamed.length ? "; renamed " + renamed.join(", ") : "") + ")";
    form.querySelector("button[type=submit]").disabled = true;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    status.textContent = "writing…";
    var headers = { "Content-Type": "application/json" };
    headers[form.dataset.header] = token();
    fetch("/api/proposals", { method: "POST", headers: headers, body: JSON.stringify(decisions()),
                              credentials: "omit", cache: "no-store" })
      .then(function (response) {
        return response.text().then(function (text) { said(response, text); });
      })
      .catch(function (error) {
        status.textContent = "not sent (" + error.message + "): is the viewer still running?";
      });
  });
})();
