// The matrix page: fetches one page of cases at a time from /api and draws it with
// textContent only, so nothing from the data is ever parsed as HTML.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var run = form.dataset.run, other = form.dataset.other;
  var head = document.getElementById("grid-head"), body = document.getElementById("grid-body");
  var shown = document.getElementById("shown"), errorBox = document.getElementById("error");
  var PAGE = 50, offset = 0, total = 0, current = -1, columns = [], rows = [], asked = 0;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  var FLAGS = [["failed", "f-failed"], ["errored", "f-errored"], ["flaky", "f-flaky"],
               ["must_pass", "f-must-pass"]];
  var FIELDS = [["tag", "f-tag"], ["suite", "f-suite"], ["changed", "f-changed"], ["q", "q"]];

  // The filters and the page live in the address too: a link shares them, Back returns to them.
  function shared() {
    var p = new URLSearchParams();
    if (other) p.set("b", other);
    FLAGS.forEach(function (pair) {
      if (document.getElementById(pair[1]).checked) p.set(pair[0], "1");
    });
    FIELDS.forEach(function (pair) {
      var value = document.getElementById(pair[1]).value;
      if (value) p.set(pair[0], value);
    });
    if (offset) p.set("offset", String(offset));
    return p;
  }

  function restore() {
    var p = new URLSearchParams(location.search);
    FLAGS.forEach(function (pair) {
      document.getElementById(pair[1]).checked = p.get(pair[0]) === "1";
    });
    FIELDS.forEach(function (pair) { document.getElementById(pair[1]).value = p.get(pair[0]) || ""; });
    offset = Math.max(0, parseInt(p.get("offset") || "0", 10) || 0);
  }

  function params() {
    var p = shared();
    p.set("offset", String(offset));
    p.set("limit", String(PAGE));
    return p;
  }

  function resultLink(column, row, repeat) {
    var p = new URLSearchParams({case: row.key, variant: column.variant, model: column.model,
                                 repeat: String(repeat)});
    return "/runs/" + encodeURIComponent(column.run) + "/result?" + p.toString();
  }

  function pill(grade) {
    var node = el("span", "pill " + (grade.passed ? "ok" : "bad"), grade.name);
    node.tabIndex = 0;  // the reason shows on focus too, not only on hover
    node.appendChild(el("span", "tip", grade.tip));
    return node;
  }

  // A case's part: an image the server embedded (a data: URL, the only images the page's
  // policy allows), else its kind and name.
  function partView(part) {
    var label = part.kind + " " + part.name;
    if (!part.src) return el("div", "part-name", label);
    var image = el("img", "mthumb");
    image.src = part.src;
    image.alt = image.title = label;
    return image;
  }

  function cell(column, row, entries) {
    var td = el("td", column.run === run ? "" : "other");
    entries.forEach(function (entry) {
      var rep = el("div", "rep");
      var status = el("a", "status s-" + entry.status, entry.status);
      status.href = resultLink(column, row, entry.repeat);
      if (entries.length > 1) rep.appendChild(el("span", "sub", "r" + entry.repeat + " "));
      rep.appendChild(status);
      var pills = el("div", "pills");
      entry.grades.forEach(function (g) { pills.appendChild(pill(g)); });
      rep.appendChild(pills);
      if (entry.turn) {
        // A conversation: the turn the cell shows (the first failing one, else the last).
        rep.appendChild(el("div", "turn", "turn " + entry.turn.number + " of " + entry.turn.of
          + (entry.turn.failing ? " failed" : "") + " · user: " + entry.turn.query));
      }
      entry.tools.forEach(function (call) { rep.appendChild(el("div", "tool", "→ " + call)); });
      rep.appendChild(el("div", "answer", entry.error ? "error: " + entry.error : entry.text));
      if (entry.cut) rep.appendChild(el("div", "sub", "… cut here: the result page has it all"));
      if (entry.reasons.length) rep.title = entry.reasons.join("\n");
      td.appendChild(rep);
    });
    return td;
  }

  function draw(data) {
    columns = data.columns;
    rows = data.rows;
    total = data.total;
    head.textContent = "";
    head.appendChild(el("th", "case", "Case"));
    columns.forEach(function (c) { head.appendChild(el("th", "", c.label)); });
    body.textContent = "";
    rows.forEach(function (row, i) {
      var tr = el("tr", "mrow");
      tr.dataset.i = String(i);
      tr.tabIndex = -1;
      var first = el("td", "case");
      var link = el("a", "case-id", row.key);
      link.href = "/cases?id=" + encodeURIComponent(row.key);
      first.appendChild(link);
      row.parts.forEach(function (part) { first.appendChild(partView(part)); });
      var tags = {};
      row.cells.forEach(function (entries) {
        entries.forEach(function (e) {
          e.tags.forEach(function (t) { tags[t] = 1; });
          if (e.must_pass) tags["must-pass"] = 1;
        });
      });
      Object.keys(tags).forEach(function (t) { first.appendChild(el("span", "tag", t)); });
      tr.appendChild(first);
      row.cells.forEach(function (entries, c) { tr.appendChild(cell(columns[c], row, entries)); });
      tr.addEventListener("click", function () { select(i); });
      body.appendChild(tr);
    });
    var last = Math.min(offset + rows.length, total);
    shown.textContent = total ? (offset + 1) + "–" + last + " of " + total + " cases"
                              : "0 cases match";
    document.getElementById("prev").disabled = offset === 0;
    document.getElementById("next").disabled = last >= total;
    current = -1;
    if (rows.length) select(0, true);
  }

  function load() {
    var mine = ++asked;
    fetch("/api/runs/" + encodeURIComponent(run) + "/matrix?" + params().toString())
      .then(function (response) {
        return response.json().then(function (data) { return [response.ok, data]; });
      })
      .then(function (answer) {
        if (mine !== asked) return;  // a newer request is on its way
        errorBox.hidden = answer[0];
        if (!answer[0]) { errorBox.textContent = answer[1].error; return; }
        // A shared link's page past the end (the run or the filters changed): the first page.
        if (!answer[1].rows.length && offset > 0) { offset = 0; load(); return; }
        var query = shared().toString();
        history.replaceState(null, "", location.pathname + (query ? "?" + query : ""));
        draw(answer[1]);
      });
  }

  function select(i, quiet) {
    var trs = body.querySelectorAll("tr.mrow");
    if (!trs.length) return;
    i = Math.max(0, Math.min(i, trs.length - 1));
    if (current >= 0 && trs[current]) trs[current].classList.remove("current");
    current = i;
    trs[i].classList.add("current");
    if (!quiet) { trs[i].focus(); trs[i].scrollIntoView({block: "nearest"}); }
  }

  function columnPicker(id, chosen) {
    var select = el("select");
    select.id = id;
    columns.forEach(function (c, i) {
      var option = el("option", "", c.label);
      option.value = String(i);
      select.appendChild(option);
    });
    select.value = String(chosen);
    return select;
  }

  function showDiff(row, a, b, repeat, out) {
    var ca = columns[a], cb = columns[b];
    var p = new URLSearchParams({suite: row.suite, case: row.case, repeat: String(repeat),
      run_a: ca.run, model_a: ca.model, variant_a: ca.variant,
      run_b: cb.run, model_b: cb.model, variant_b: cb.variant});
    fetch("/api/diff?" + p.toString()).then(function (r) { return r.json(); }).then(function (d) {
      out.textContent = "";
      if (d.error) { out.appendChild(el("span", "", d.error)); return; }
      d.ops.forEach(function (op) {
        var tag = op[0] === "delete" ? "del" : op[0] === "insert" ? "ins" : "span";
        out.appendChild(el(tag, "", op[1]));
      });
    });
  }

  function toggle() {
    var tr = body.querySelectorAll("tr.mrow")[current];
    if (!tr) return;
    var next = tr.nextElementSibling;
    if (tr.classList.toggle("open")) {
      var row = rows[current], panel = el("tr", "diff-row"), td = el("td");
      td.colSpan = columns.length + 1;
      var bar = el("div", "bar"), out = el("div", "diff");
      out.id = "diff";
      var firstOther = columns.findIndex(function (c) { return c.run !== run; });
      // Beside another run: from its first column (before) to this run's (after).
      var a = columnPicker("diff-a", firstOther >= 0 ? firstOther : 0);
      var b = columnPicker("diff-b", firstOther >= 0 ? 0 : Math.min(1, columns.length - 1));
      var repeat = el("input");
      repeat.type = "number"; repeat.min = "1"; repeat.value = "1"; repeat.id = "diff-repeat";
      var go = el("button", "", "Diff");
      go.type = "button"; go.id = "diff-go";
      go.addEventListener("click", function () {
        showDiff(row, Number(a.value), Number(b.value), Number(repeat.value) || 1, out);
      });
      [el("span", "", "Word diff of"), a, el("span", "", "→"), b, el("span", "", "repeat"),
       repeat, go].forEach(function (n) { bar.appendChild(n); });
      td.appendChild(bar);
      td.appendChild(out);
      panel.appendChild(td);
      tr.parentNode.insertBefore(panel, next);
    } else if (next && next.classList.contains("diff-row")) {
      next.remove();
    }
  }

  var timer = 0;
  form.addEventListener("input", function (event) {
    offset = 0;
    clearTimeout(timer);
    // Typing waits for a pause; a checkbox or a choice asks at once.
    timer = setTimeout(load, event.target.id === "q" ? 200 : 0);
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  document.getElementById("prev").addEventListener("click", function () {
    offset = Math.max(0, offset - PAGE); load();
  });
  document.getElementById("next").addEventListener("click", function () {
    if (offset + PAGE < total) { offset += PAGE; load(); }
  });
  document.addEventListener("keydown", function (event) {
    var typing = /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName);
    if (event.key === "Escape" && typing) {
      // Back to the rows, keeping the text (a search field would clear itself on Escape).
      event.preventDefault(); event.target.blur(); return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    var body_rows = body.querySelectorAll("tr.mrow").length;
    if (event.key === "/") { event.preventDefault(); document.getElementById("q").focus(); }
    else if (event.key === "j" || event.key === "ArrowDown") {
      event.preventDefault(); select(current + 1);
    } else if (event.key === "k" || event.key === "ArrowUp") {
      event.preventDefault(); select(current - 1);
    } else if (event.key === "Enter" && body_rows && event.target.tagName !== "A"
               && event.target.tagName !== "BUTTON") {
      event.preventDefault(); toggle();
    }
  });
  restore();
  load();
})();
