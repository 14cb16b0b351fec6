"use strict";
// Everything this script shows from the data goes through textContent, never innerHTML:
// the strings are a model's and a suite's, so they must stay text.
(function () {
  // Rows drawn at a time: the page stays quick with 100,000 results; the rest is a click away.
  const PAGE = 100;
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const heads = Array.from(document.querySelectorAll("#matrix .head [data-col]"));
  const body = document.querySelector("#matrix .rows");
  const failedOnly = document.getElementById("failed-only");
  const modelFilter = document.getElementById("model-filter");
  const tagFilter = document.getElementById("tag-filter");
  const search = document.getElementById("search");
  const shown = document.getElementById("shown");
  const pageInfo = document.getElementById("page-info");
  const previous = [document.getElementById("prev"), document.getElementById("prev-end")];
  const next = [document.getElementById("next"), document.getElementById("next-end")];
  const pagerEnd = document.getElementById("pager-end");
  const dialog = document.getElementById("detail");
  const attackNote = document.getElementById("attack-filter");

  // One row per case and repeat, in the order the results first appear.
  const rows = [];
  const byKey = new Map();
  data.cells.forEach(function (cell, index) {
    const repeat = cell.n || 1;
    const key = cell.i + "\u0000" + repeat;
    let row = byKey.get(key);
    if (row === undefined) {
      row = { id: cell.i, repeat: repeat, source: cell.u, tags: [], cells: heads.map(function () { return null; }) };
      byKey.set(key, row);
      rows.push(row);
    }
    row.cells[cell.m] = index;
    for (const tag of cell.t || []) {
      if (!row.tags.includes(tag)) row.tags.push(tag);
    }
  });
  byKey.clear();
  for (const tag of data.tags) tagFilter.appendChild(new Option(tag, tag));

  let listed = [];
  let failing = 0;
  let page = 0;
  // A heat map cell's attacks ({column, goal, strategy}; "" for any), or null for every row.
  let attacks = null;

  function number(n) {
    return n.toLocaleString("en-US");
  }

  // As the report's Python cuts text: by characters (code points), marked with an ellipsis.
  function shorten(text, limit) {
    const characters = Array.from(text);
    return characters.length <= limit ? text : characters.slice(0, limit - 1).join("") + "…";
  }

  function judged(cell) {
    if (cell.j !== undefined) return cell.j;
    return (cell.g || []).filter(function (line) { return line.length > 1 && line[4]; })
      .map(function (line) { return line[4]; }).join("; ");
  }

  // Built on first search only: a report of many results should open without this work.
  function haystack(row) {
    if (row.haystack === undefined) {
      const parts = [row.id, data.repeated ? "repeat " + row.repeat : "", row.source || ""];
      parts.push(...row.tags);
      row.cells.forEach(function (k, column) {
        if (k === null) return;
        const cell = data.cells[k];
        parts.push(heads[column].textContent, cell.s, cell.r, cell.e || "", (cell.w || []).join(" "), judged(cell));
        for (const message of data.prompts[cell.p]) {
          parts.push(message[1]);
          for (const part of message[2] || []) parts.push(part[1]);
        }
        for (const turn of cell.d || []) parts.push(turn[1], turn[2], turn[3]);
      });
      row.haystack = parts.join("\n").toLowerCase();
    }
    return row.haystack;
  }

  // A case's goal and strategy as promptum.values.asr.attack_of reads its tags; null if none.
  function attackOf(tags) {
    if (!tags.includes("redteam")) return null;
    const goal = tags.find(function (tag) { return tag.startsWith("goal:"); });
    const strategy = tags.find(function (tag) { return tag.startsWith("strategy:"); });
    return [goal ? goal.slice(5) : "untagged", strategy ? strategy.slice(9) : "untagged"];
  }

  function isAttack(row) {
    const found = attackOf(row.tags);
    return found !== null && row.cells[attacks.column] !== null &&
      (attacks.goal === "" || found[0] === attacks.goal) &&
      (attacks.strategy === "" || found[1] === attacks.strategy);
  }

  // A heat map cell links to #attacks/<column>/<goal>/<strategy> (each URI-encoded, empty for
  // any): the matrix then lists that column's results of those attacks, and says so.
  function fromHash() {
    const hash = location.hash;
    let parts = [];
    try {
      parts = hash.startsWith("#attacks/") ? hash.slice(9).split("/").map(decodeURIComponent) : [];
    } catch (error) {
      parts = [];
    }
    const column = parts.length === 3 ? heads.findIndex(function (h) { return h.textContent === parts[0]; }) : -1;
    const was = attacks;
    attacks = column < 0 ? null : { column: column, goal: parts[1], strategy: parts[2] };
    if (attacks !== null) {
      modelFilter.value = String(column);
      const goal = attacks.goal || "every goal";
      const strategy = attacks.strategy || "every strategy";
      attackNote.firstChild.textContent = "Attacks: " + goal + " × " + strategy + " on " + parts[0] + ". ";
    } else if (was !== null) {
      modelFilter.value = "";
    }
    attackNote.hidden = attacks === null;
    apply();
    if (attacks !== null) document.getElementById("matrix").scrollIntoView();
  }

  function apply() {
    const model = modelFilter.value;
    const tag = tagFilter.value;
    const query = search.value.trim().toLowerCase();
    for (const element of heads) {
      element.hidden = model !== "" && element.dataset.col !== model;
    }
    const failed = [];
    const passed = [];
    for (const row of rows) {
      const cells = (model === "" ? row.cells : [row.cells[Number(model)]]).filter(function (k) { return k !== null; });
      if (cells.length === 0) continue;
      const bad = cells.some(function (k) { return data.cells[k].s !== "pass"; });
      if (failedOnly.checked && !bad) continue;
      if (tag !== "" && !row.tags.includes(tag)) continue;
      if (attacks !== null && !isAttack(row)) continue;
      if (query !== "" && !haystack(row).includes(query)) continue;
      (bad ? failed : passed).push(row);
    }
    // Failures and errors first: they are what a reader of a large run came for.
    listed = failed.concat(passed);
    failing = failed.length;
    page = 0;
    shown.textContent = number(listed.length) + " of " + number(rows.length) + " cases";
    draw();
  }

  function describe(first, last) {
    const passing = listed.length - failing;
    const range = "Showing " + number(first) + "–" + number(last) + " of " + number(listed.length);
    if (failing && passing) {
      return range + ": the " + number(failing) + " with a failure or error first, then " + number(passing) + " passed";
    }
    return range + (failing ? ", all with a failure or error" : ", all passed");
  }

  function draw() {
    const start = page * PAGE;
    const end = Math.min(start + PAGE, listed.length);
    body.replaceChildren(...listed.slice(start, end).map(rowElement));
    pageInfo.textContent = listed.length ? describe(start + 1, end) : "";
    const single = listed.length <= PAGE;
    pagerEnd.hidden = single;
    for (const button of previous) {
      button.hidden = single;
      button.disabled = page === 0;
    }
    for (const button of next) {
      button.hidden = single;
      button.disabled = end >= listed.length;
    }
  }

  function add(parent, tag, text, className) {
    const element = document.createElement(tag);
    if (text !== undefined) element.textContent = text;
    if (className) element.className = className;
    parent.appendChild(element);
    return element;
  }

  function rowElement(row) {
    const element = document.createElement("div");
    element.className = "row";
    element.setAttribute("role", "row");
    const head = add(element, "div", undefined, "case");
    head.setAttribute("role", "rowheader");
    add(head, "span", row.id, "case-id");
    if (data.repeated) {
      head.append(" ");
      add(head, "span", "repeat " + row.repeat, "sub");
    }
    if (row.source) add(head, "div", row.source, "sub");
    if (row.tags.length) {
      const tags = add(head, "div");
      for (const tag of row.tags) add(tags, "span", tag, "tag");
    }
    const model = modelFilter.value;
    row.cells.forEach(function (k, column) {
      const cell = add(element, "div");
      cell.setAttribute("role", "cell");
      cell.dataset.col = column;
      cell.hidden = model !== "" && String(column) !== model;
      if (k === null) add(cell, "span", "not run", "status s-none");
      else fill(cell, k);
    });
    return element;
  }

  function pillsOf(parent, indexes) {
    const pills = add(parent, "div", undefined, "pills");
    for (const k of indexes) {
      const [name, ok, custom, tip] = data.checks[k];
      const pill = add(pills, "span", name, "pill " + (ok ? "ok" : "bad") + (custom ? " custom" : ""));
      pill.tabIndex = 0;
      if (tip) add(pill, "span", tip, "tip").setAttribute("role", "tooltip");
    }
    return pills;
  }

  // A conversation's turns, each collapsible with its grades beside it; the failing one marked.
  function transcript(parent, cell) {
    add(parent, "h3", "Transcript");
    const failing = cell.z && cell.z.startsWith("turn ") ? Number(cell.z.slice(5)) : 0;
    cell.d.forEach(function (turn, index) {
      const [status, query, reply, error, grades, figures] = turn;
      const number = index + 1;
      const box = add(parent, "details", undefined, "turn t-" + status + (number === failing ? " failing" : ""));
      box.open = true;
      box.dataset.turn = number;
      const summary = add(box, "summary");
      add(summary, "span", "Turn " + number, "turn-no");
      add(summary, "span", status, "status s-" + status);
      if (number === failing) add(summary, "span", "failing turn", "failing-turn");
      if (grades.length) pillsOf(summary, grades);
      if (figures) add(summary, "span", figures, "figs");
      add(box, "div", "user", "role");
      add(box, "pre", query);
      add(box, "div", error ? "error" : "assistant", "role");
      add(box, "pre", error || reply, error ? "err" : undefined);
    });
  }

  function fill(element, k) {
    const cell = data.cells[k];
    element.dataset.cell = k;
    const button = add(element, "button", cell.s, "status s-" + cell.s);
    button.type = "button";
    button.title = cell.d ? "Show the conversation's " + cell.d.length + " turns" : "Show prompt and response";
    if (cell.c) {
      element.append(" ");
      add(element, "span", "cached", "cached");
    }
    // A conversation names what failed first: the turn to read, or the whole conversation.
    if (cell.z) add(element, "div", cell.z + " failed first", "failing-turn");
    if (cell.k) pillsOf(element, cell.k);
    if (cell.a) {
      const list = add(element, "ul", undefined, "asserts");
      for (const [ok, reason] of cell.a) add(list, "li", reason, ok ? "ok" : "bad");
    }
    for (const line of cell.g || []) {
      if (line.length === 1) {
        add(element, "div", line[0], "judge");
        continue;
      }
      const [ok, label, threshold, note, reason, rubric] = line;
      const judge = add(element, "div", undefined, "judge " + (ok ? "ok" : "bad"));
      if (rubric) judge.title = rubric;
      add(judge, "b", label);
      judge.append(" / " + threshold);
      if (note) {
        judge.append(" ");
        add(judge, "span", "(mean; " + note + ")", "sub");
      }
      judge.append(": " + reason);
    }
    const error = cell.e !== undefined;
    let brief = cell.b;
    if (brief === undefined) brief = error ? shorten(cell.e, data.reason) : shorten(cell.r, data.preview);
    add(element, "div", brief, error ? "err" : "preview");
    add(element, "div", cell.f, "figs");
  }

  function section(parent, title, text) {
    add(parent, "h3", title);
    add(parent, "pre", text);
  }

  // A message's parts: an image the report embedded as a thumbnail (a data: URL, the only
  // images the page's policy allows), every part named with its media type and digest.
  function attached(parent, parts) {
    const list = add(parent, "ul", undefined, "parts");
    for (const part of parts) {
      const item = add(list, "li", undefined, "part");
      if (part[4].startsWith("data:image/")) {
        const image = add(item, "img", undefined, "thumb");
        image.alt = part[0] + " " + part[1];
        image.src = part[4];
      }
      const facts = [part[0] + " " + part[1], part[2]];
      if (part[3]) facts.push("sha256 " + part[3]);
      if (part[5]) facts.push(part[5]);
      add(item, "span", facts.join(" · "), "part-name");
    }
  }

  function prompted(parent, prompt, title) {
    add(parent, "h3", title);
    for (const message of prompt) {
      add(parent, "div", message[0], "role");
      add(parent, "pre", message[1]);
      if (message[2]) attached(parent, message[2]);
    }
  }

  function open(cellElement) {
    const cell = data.cells[Number(cellElement.dataset.cell)];
    const row = cellElement.closest(".row");
    const model = heads[Number(cellElement.dataset.col)];
    document.getElementById("detail-title").textContent =
      row.querySelector(".case-id").textContent + " · " + model.textContent + " · " + cell.s;
    const detail = document.getElementById("detail-body");
    detail.replaceChildren();
    add(detail, "p", cell.f, "figs");
    if (cell.w) {
      add(detail, "h3", "Why it did not pass");
      const list = add(detail, "ul");
      for (const reason of cell.w) add(list, "li", reason);
    }
    const conversation = cell.d !== undefined;
    const prompt = data.prompts[cell.p];
    if (conversation) {
      // Read in order: how it opened, each turn with its grades, then the grades over it all.
      if (prompt.length) prompted(detail, prompt, "Opening messages");
      transcript(detail, cell);
    }
    // The checks and assertions are already text nodes in the cell: reuse them as they are.
    const of = conversation ? "Conversation " : "";
    for (const [selector, title] of [[".pills", "checks"], [".asserts", "field assertions"]]) {
      const part = cellElement.querySelector(":scope > " + selector);
      if (part) {
        add(detail, "h3", of ? of + title : title[0].toUpperCase() + title.slice(1));
        detail.appendChild(part.cloneNode(true));
      }
    }
    const judge = judged(cell);
    if (judge) section(detail, of ? "Conversation judge" : "Judge", judge);
    if (cell.h) {
      add(detail, "h3", "Human reviews");
      const list = add(detail, "ul");
      for (const [head, text] of cell.h) {
        const item = add(list, "li", head);
        if (text) add(item, "pre", text);
      }
    }
    if (cell.x) section(detail, "Expected behaviour", cell.x);
    if (!conversation && prompt.length) prompted(detail, prompt, "Prompt");
    if (cell.e) section(detail, "Error", cell.e);
    else if (!conversation) section(detail, "Response", cell.r);
    for (const text of cell.v || []) section(detail, "Response after transform", text);
    if (cell.o) section(detail, "Parsed output", cell.o);
    dialog.showModal();
  }

  function turn(step) {
    page += step;
    draw();
    document.getElementById("pager").scrollIntoView();
  }

  document.getElementById("matrix").addEventListener("click", function (event) {
    const button = event.target.closest("button.status");
    if (button) open(button.closest("[data-cell]"));
  });
  document.getElementById("detail-close").addEventListener("click", function () {
    dialog.close();
  });
  for (const button of previous) button.addEventListener("click", function () { turn(-1); });
  for (const button of next) button.addEventListener("click", function () { turn(1); });
  for (const control of [failedOnly, modelFilter, tagFilter]) {
    control.addEventListener("change", apply);
  }
  search.addEventListener("input", apply);
  window.addEventListener("hashchange", fromHash);
  document.getElementById("attack-clear").addEventListener("click", function () {
    location.hash = "asr";
  });
  fromHash();
})();
