"use strict";
// Everything this script shows from the data goes through textContent, never innerHTML:
// the strings are a model's and a suite's, so they must stay text.
(function () {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const rows = Array.from(document.querySelectorAll("#matrix .row"));
  const columns = Array.from(document.querySelectorAll("#matrix [data-col]"));
  const failedOnly = document.getElementById("failed-only");
  const modelFilter = document.getElementById("model-filter");
  const tagFilter = document.getElementById("tag-filter");
  const search = document.getElementById("search");
  const shown = document.getElementById("shown");
  const dialog = document.getElementById("detail");
  const haystacks = [];

  // Built on first search only: a 6,000-result report should open without this work.
  function haystack(i) {
    if (haystacks[i] === undefined) {
      const parts = [rows[i].querySelector(".case").textContent];
      for (const k of data.rows[i].c) {
        if (k === null) continue;
        const cell = data.cells[k];
        parts.push(cell.r, cell.e || "", (cell.w || []).join(" "), cell.j || "");
        for (const message of data.prompts[cell.p]) parts.push(message[1]);
      }
      haystacks[i] = parts.join("\n").toLowerCase();
    }
    return haystacks[i];
  }

  function apply() {
    const model = modelFilter.value;
    const tag = tagFilter.value;
    const query = search.value.trim().toLowerCase();
    for (const element of columns) {
      element.hidden = model !== "" && element.dataset.col !== model;
    }
    let count = 0;
    data.rows.forEach(function (row, i) {
      const cells = model === "" ? row.c : [row.c[Number(model)]];
      let visible = cells.some(function (k) { return k !== null; });
      if (visible && failedOnly.checked) {
        visible = cells.some(function (k) { return k !== null && data.cells[k].s !== "pass"; });
      }
      if (visible && tag !== "") visible = row.t.includes(tag);
      if (visible && query !== "") visible = haystack(i).includes(query);
      rows[i].hidden = !visible;
      if (visible) count += 1;
    });
    shown.textContent = count + " of " + rows.length + " cases";
  }

  function add(parent, tag, text, className) {
    const element = document.createElement(tag);
    if (text !== undefined) element.textContent = text;
    if (className) element.className = className;
    parent.appendChild(element);
    return element;
  }

  function section(body, title, text) {
    add(body, "h3", title);
    add(body, "pre", text);
  }

  function open(cellElement) {
    const cell = data.cells[Number(cellElement.dataset.cell)];
    const row = cellElement.closest(".row");
    const model = document.querySelector('#matrix .head [data-col="' + cellElement.dataset.col + '"]');
    document.getElementById("detail-title").textContent =
      row.querySelector(".case-id").textContent + " · " + model.textContent + " · " + cell.s;
    const body = document.getElementById("detail-body");
    body.replaceChildren();
    add(body, "p", cell.f, "figs");
    if (cell.w) {
      add(body, "h3", "Why it did not pass");
      const list = add(body, "ul");
      for (const reason of cell.w) add(list, "li", reason);
    }
    // The checks and assertions are already escaped DOM in the cell: reuse them as they are.
    for (const [selector, title] of [[".pills", "Checks"], [".asserts", "Field assertions"]]) {
      const part = cellElement.querySelector(selector);
      if (part) {
        add(body, "h3", title);
        body.appendChild(part.cloneNode(true));
      }
    }
    if (cell.j) section(body, "Judge", cell.j);
    if (cell.x) section(body, "Expected behaviour", cell.x);
    const prompt = data.prompts[cell.p];
    if (prompt.length) {
      add(body, "h3", "Prompt");
      for (const message of prompt) {
        add(body, "div", message[0], "role");
        add(body, "pre", message[1]);
      }
    }
    if (cell.e) section(body, "Error", cell.e);
    else section(body, "Response", cell.r);
    if (cell.o) section(body, "Parsed output", cell.o);
    dialog.showModal();
  }

  document.getElementById("matrix").addEventListener("click", function (event) {
    const button = event.target.closest("button.status");
    if (button) open(button.closest("[data-cell]"));
  });
  document.getElementById("detail-close").addEventListener("click", function () {
    dialog.close();
  });
  for (const control of [failedOnly, modelFilter, tagFilter]) {
    control.addEventListener("change", apply);
  }
  search.addEventListener("input", apply);
  apply();
})();
