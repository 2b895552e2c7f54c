/* The explorer: filter and sort every reported result of the site.
 *
 * Rows come from data/results.js (the rows of data/results.json, each cell as
 * its authored text), loaded with <script src> so that the page works from
 * disk too. The filter and sort state lives in the address (?model=...&sort=value),
 * so a view can be shared. Plain JavaScript, no framework.
 *
 * Comparability (schema/comparability.json): two rows with the same non-null
 * comparison_key may be compared. "Comparable to this row" shows the rows of
 * one key (?comparable=<key>&row=<record>/<result id>; the browser's Back, or
 * the notice's Remove filter, returns to the view before); "Group by comparison
 * key" (?group=1) puts the rows of each key together under a header, in the
 * order of the group's first row under the current sort, rows sorted inside
 * their group, and the rows without a key in a last group. The rows of each
 * key are found once, when the page loads, and each row's <tr> (and each
 * group's header) is made once: a keystroke filters and sorts the rows, then
 * (see place) adds and removes only the <tr> that come and go.
 *
 * Values of the content (a model, a record id, a metric) are keys of Maps and
 * Sets, or read with own() from the objects of results.js: a model named
 * __proto__ or constructor is a value like any other, never Object.prototype.
 */
(function () {
  "use strict";
  var data = window.EVIDENCEPRESS_RESULTS;
  var table = document.getElementById("explore-table");
  var form = document.getElementById("explore-filters");
  var count = document.getElementById("explore-count");
  var note = document.getElementById("explore-note");
  var box = document.getElementById("explore-filter-box");
  var active = document.getElementById("explore-active");
  var like = document.getElementById("explore-like");
  var likeText = document.getElementById("explore-like-text");
  var likeRemove = document.getElementById("explore-like-remove");
  var groupToggle = document.getElementById("explore-group");
  if (!table || !form || !count) {
    return;
  }
  if (!data) {
    count.textContent = "The results could not be loaded. Download them as CSV or JSON above.";
    return;
  }
  // An own property of a plain object, never one inherited from Object.prototype (constructor, toString).
  function own(object, key) {
    return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
  }
  var FILTERS = {
    model: "conditions.model",
    system: "conditions.system",
    engine: "conditions.engine",
    metric: "metric",
    record: "source_record_id",
    verification: "verification"
  };
  // The states of a value against its cited line, as the pages name them.
  var CHECKS = data.checks || {};
  var NUMERIC = new Set(["value", "conditions.concurrency"]);
  var LONG_TEXT = 28;  // characters: a longer cell wraps inside a wider column (as on record pages)
  var root = table.getAttribute("data-root") || "";
  var columnIndex = new Map();
  data.columns.forEach(function (name, index) {
    columnIndex.set(name, index);
  });
  // Each metric's key conditions, in key order (what a comparison key stands for); none in an older results.js.
  var KEY_CONDITIONS = data.key_conditions || null;
  var NO_KEY_GROUP = "Not comparable (a key condition unknown)";
  var keyColumn = columnIndex.get("comparison_key");
  var rows = data.rows.map(function (cells, order) {
    var key = keyColumn === undefined ? null : cells[keyColumn];
    return { cells: cells, order: order, text: searchText(cells), key: key || null, element: null };
  });
  // The rows of each comparison key, in table order: made once, read by every view.
  var byKey = new Map();
  rows.forEach(function (row) {
    if (row.key !== null) {
      var members = byKey.get(row.key);
      if (!members) {
        members = [];
        byKey.set(row.key, members);
      }
      members.push(row);
    }
  });
  var groupTitles = new Map();  // key -> [metric, "condition: value" texts], made when first shown
  var groupBodies = new Map();  // key ("" for the rows without one) -> its <tbody>, header row and count
  var flatBody = table.tBodies[0];  // the rows when they are not grouped
  var headers = Array.prototype.slice.call(table.querySelectorAll("th[data-column]"));
  var columnCount = table.tHead.rows[0].cells.length;
  var state = readState();
  var before = null;  // the view "Comparable to this row" left, when the address could not keep it

  function cell(row, column) {
    var index = columnIndex.get(column);
    return index === undefined ? null : row.cells[index];
  }

  function pageTitle(path) {
    return own(data.pages, path) || path;
  }

  function searchText(cells) {
    var parts = cells.filter(function (value) { return value !== null; });
    var page = cells[columnIndex.get("page")];
    parts.push(pageTitle(page));
    return parts.join(" \u2029 ").toLowerCase();
  }

  function link(path) {
    var url = root + String(path).replace(/^\//, "");
    return window.evidencepress ? window.evidencepress.href(url) : url;
  }

  function readState() {
    var params = new URLSearchParams(location.search);
    var found = { q: params.get("q") || "", sort: params.get("sort") || "", dir: params.get("dir") === "desc" ? "desc" : "asc",
                  comparable: params.get("comparable") || "", row: params.get("row") || "", group: params.get("group") === "1" };
    Object.keys(FILTERS).forEach(function (name) {
      found[name] = params.get(name) || "";
    });
    return found;
  }

  // The view in the address: replaced, or (push) a new history entry that the browser's Back leaves.
  function writeState(push) {
    var params = new URLSearchParams();
    ["q"].concat(Object.keys(FILTERS)).forEach(function (name) {
      if (state[name]) {
        params.set(name, state[name]);
      }
    });
    if (state.comparable) {
      params.set("comparable", state.comparable);
      if (state.row) {
        params.set("row", state.row);
      }
    }
    if (state.group) {
      params.set("group", "1");
    }
    if (state.sort) {
      params.set("sort", state.sort);
      params.set("dir", state.dir);
    }
    var query = params.toString();
    try {
      if (push) {
        history.pushState({ explorerCompared: true }, "", query ? "?" + query : location.pathname);
      } else {
        history.replaceState(history.state, "", query ? "?" + query : location.pathname);
      }
      return true;
    } catch (error) {
      return false;  // some browsers refuse to change the address of a local file; the view still works
    }
  }

  function showStateInForm() {
    form.elements.q.value = state.q;
    Object.keys(FILTERS).forEach(function (name) {
      var select = form.elements[name];
      select.value = state[name];
      if (select.value !== state[name]) {
        state[name] = "";  // a value no row has (an old address): not a filter
        select.value = "";
      }
    });
    if (groupToggle) {
      groupToggle.checked = state.group;
    }
  }

  function fillSelect(name) {
    var select = form.elements[name];
    var counts = new Map();
    rows.forEach(function (row) {
      var value = cell(row, FILTERS[name]);
      if (value !== null) {
        counts.set(value, (counts.get(value) || 0) + 1);
      }
    });
    var values = Array.from(counts.keys()).sort(function (a, b) { return a.localeCompare(b, "en"); });
    if (state[name] && !counts.has(state[name])) {
      values.push(state[name]);
      counts.set(state[name], 0);
    }
    values.forEach(function (value) {
      var option = document.createElement("option");
      var record = name === "record" ? own(data.records, value) : undefined;
      var check = name === "verification" ? own(CHECKS, value) : undefined;
      option.value = value;
      option.textContent = (record && record !== value ? record : check || value) + " (" + counts.get(value) + ")";
      select.appendChild(option);
    });
    select.value = state[name];
  }

  function matches(row) {
    for (var name in FILTERS) {
      if (state[name] && cell(row, FILTERS[name]) !== state[name]) {
        return false;
      }
    }
    var words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    return words.every(function (word) { return row.text.indexOf(word) >= 0; });
  }

  function compare(a, b) {
    var column = state.sort;
    var x = cell(a, column);
    var y = cell(b, column);
    if (x === null || y === null) {
      return x === y ? a.order - b.order : (x === null ? 1 : -1);  // not reported: always last
    }
    var result;
    if (NUMERIC.has(column) && !isNaN(parseFloat(x)) && !isNaN(parseFloat(y))) {
      result = parseFloat(x) - parseFloat(y);
    } else {
      if (column === "page") {
        x = pageTitle(x);
        y = pageTitle(y);
      }
      result = x.localeCompare(y, "en", { numeric: true });
    }
    if (result === 0) {
      return a.order - b.order;
    }
    return state.dir === "desc" ? -result : result;
  }

  function textCell(value, className) {
    var td = document.createElement("td");
    if (value === null) {
      td.textContent = "not reported";
      td.className = "cell-null";
    } else {
      td.textContent = value;
      var classes = (className || "") + (value.length > LONG_TEXT ? " wrap" : "");
      if (classes.trim()) {
        td.className = classes.trim();
      }
    }
    return td;
  }

  function linkCell(text, href) {
    var td = document.createElement("td");
    var a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    td.appendChild(a);
    if (text.length > LONG_TEXT) {
      td.className = "wrap";
    }
    return td;
  }

  // A row's identity in the address: its record and result id (the same result cited twice is one).
  function rowName(row) {
    return cell(row, "source_record_id") + "/" + (cell(row, "result_id") || cell(row, "label"));
  }

  function plural(count) {
    return count + (count === 1 ? " result" : " results");
  }

  // Why a row without a key compares with nothing: its key conditions that are not reported.
  function notComparable(row) {
    var metric = cell(row, "metric");
    if (metric === null) {
      return "Not comparable: the result names no metric";
    }
    var keys = own(KEY_CONDITIONS, metric) || [];
    var unknown = keys.filter(function (key) {
      var index = columnIndex.get("conditions." + key);
      return index !== undefined && row.cells[index] === null;
    });
    if (unknown.length === 0) {
      return "Not comparable: a key condition is not reported";
    }
    return "Not comparable: " + (unknown.length === 1 ? "a key condition is" : "key conditions are") +
      " not reported (" + unknown.join(", ") + ")";
  }

  // "Comparable to this row": a link to the view of the row's key, named after the row (the page shows
  // that view itself); for a row without a key, no link but a note that says why, on hover and focus.
  // Plain inline elements: a <button> in each of 100,000 rows costs its own layout box.
  function compareCell(row) {
    var td = document.createElement("td");
    td.className = "compare-cell";
    var label = cell(row, "label");
    var control;
    if (row.key !== null) {
      var size = byKey.get(row.key).length;
      control = document.createElement("a");
      control.className = "compare";
      control.href = "?comparable=" + encodeURIComponent(row.key) + "&row=" + encodeURIComponent(rowName(row));
      control.textContent = plural(size);
      control.setAttribute("data-order", String(row.order));
      control.setAttribute("aria-label", "Comparable to this row: " + label + " (" + plural(size) + ")");
      control.title = "Show the results comparable to this one: the same metric and key conditions";
    } else {
      var why = notComparable(row);
      control = document.createElement("span");
      control.className = "compare compare-none";
      control.tabIndex = 0;
      control.setAttribute("role", "note");
      control.setAttribute("aria-label", "Comparable to this row: " + label + ". " + why);
      control.setAttribute("data-tip", why);
      control.textContent = "none";
    }
    td.appendChild(control);
    return td;
  }

  // A row's <tr>, made the first time it is shown and moved from then on (rows never change).
  function rowElement(row) {
    if (row.element === null) {
      row.element = makeRow(row);
    }
    return row.element;
  }

  function makeRow(row) {
    var tr = document.createElement("tr");
    var label = document.createElement("th");
    label.scope = "row";
    label.textContent = cell(row, "label");
    var statistic = cell(row, "statistic");
    if (statistic) {
      label.title = statistic;
    }
    tr.appendChild(label);
    tr.appendChild(compareCell(row));
    tr.appendChild(textCell(cell(row, "value"), "num"));
    tr.appendChild(textCell(cell(row, "unit")));
    tr.appendChild(textCell(cell(row, "metric"), "code"));
    tr.appendChild(textCell(cell(row, "conditions.model")));
    tr.appendChild(textCell(cell(row, "conditions.system")));
    tr.appendChild(textCell(cell(row, "conditions.engine")));
    tr.appendChild(textCell(cell(row, "conditions.concurrency"), "num"));
    var record = cell(row, "source_record_id");
    tr.appendChild(linkCell(record, link("/community/" + record + "/")));
    var page = cell(row, "page");
    tr.appendChild(linkCell(pageTitle(page), link(page)));
    var check = cell(row, "verification");
    var checkCell = textCell(check === null ? null : (own(CHECKS, check) || check));
    if (check !== null) {
      checkCell.className = (checkCell.className ? checkCell.className + " " : "") + "check-label check-" + check;
    }
    tr.appendChild(checkCell);
    return tr;
  }

  // The shown rows by comparison key, each group in the order of its first row; the rows without a key last.
  function groupsOf(shown) {
    var groups = new Map();
    var none = [];
    shown.forEach(function (row) {
      if (row.key === null) {
        none.push(row);
        return;
      }
      var members = groups.get(row.key);
      if (!members) {
        members = [];
        groups.set(row.key, members);
      }
      members.push(row);
    });
    var found = [];
    groups.forEach(function (members, key) {
      found.push({ key: key, rows: members });
    });
    if (none.length > 0) {
      found.push({ key: null, rows: none });
    }
    return found;
  }

  // What a key stands for: the metric and each key condition's value (the same in every row of the key).
  function groupTitle(key) {
    var title = groupTitles.get(key);
    if (!title) {
      var first = byKey.get(key)[0];
      var metric = cell(first, "metric");
      var conditions = (own(KEY_CONDITIONS, metric) || []).filter(function (name) {
        return columnIndex.has("conditions." + name);
      }).map(function (name) {
        return name + ": " + cell(first, "conditions." + name);
      });
      title = [metric, conditions];
      groupTitles.set(key, title);
    }
    return title;
  }

  // A group's <tbody> and header row, made the first time the group is shown (only its count changes).
  function groupBody(key) {
    var found = groupBodies.get(key === null ? "" : key);
    if (found) {
      return found;
    }
    var body = document.createElement("tbody");
    body.className = "group";
    var tr = document.createElement("tr");
    tr.className = "group-head";
    var th = document.createElement("th");
    th.scope = "rowgroup";
    th.colSpan = columnCount;
    var title = document.createElement("span");
    title.className = "group-title";
    if (key === null) {
      var name = document.createElement("strong");
      name.textContent = NO_KEY_GROUP;
      title.appendChild(name);
    } else {
      var shared = groupTitle(key);
      var metric = document.createElement("code");
      metric.textContent = shared[0];
      title.appendChild(metric);
      if (shared[1].length > 0) {
        var conditions = document.createElement("span");
        conditions.className = "group-conditions";
        conditions.textContent = shared[1].join(" \u00b7 ");
        title.append(" ", conditions);
      }
    }
    var size = document.createElement("span");
    size.className = "group-count";
    title.append(" ", size);
    th.appendChild(title);
    tr.appendChild(th);
    body.appendChild(tr);
    found = { body: body, head: tr, count: size };
    groupBodies.set(key === null ? "" : key, found);
    return found;
  }

  // Put nodes into parent in this order. When most of them are already there in this order (a filter
  // narrowed, or a row came back), only what is out of place moves: a row that stays keeps its style
  // and layout. Otherwise (a new sort, most rows back at once) they go in together, as one fragment.
  function place(parent, nodes) {
    var keep = new Set(nodes);
    var staying = [];
    for (var child = parent.firstElementChild; child; child = child.nextElementSibling) {
      if (keep.has(child)) {
        staying.push(child);
      }
    }
    var moved = new Set();  // the walk below, counted before it is done
    var at = 0;
    nodes.forEach(function (node) {
      while (at < staying.length && moved.has(staying[at])) {
        at += 1;
      }
      if (node === staying[at]) {
        at += 1;
      } else {
        moved.add(node);
      }
    });
    if (moved.size * 2 > nodes.length) {
      parent.replaceChildren();  // every child out at once: cheaper than one by one
      var fragment = document.createDocumentFragment();
      nodes.forEach(function (node) {
        fragment.appendChild(node);
      });
      parent.appendChild(fragment);
      return;
    }
    var next;
    for (child = parent.firstElementChild; child; child = next) {
      next = child.nextElementSibling;
      if (!keep.has(child)) {
        parent.removeChild(child);
      }
    }
    var cursor = parent.firstElementChild;
    nodes.forEach(function (node) {
      if (node === cursor) {
        cursor = cursor.nextElementSibling;
      } else {
        parent.insertBefore(node, cursor);
      }
    });
  }

  function showRows(shown) {
    if (!state.group) {
      place(flatBody, shown.map(rowElement));
      place(table, [table.tHead, flatBody]);
      return;
    }
    var bodies = groupsOf(shown).map(function (group) {
      var found = groupBody(group.key);
      found.count.textContent = plural(group.rows.length);
      place(found.body, [found.head].concat(group.rows.map(rowElement)));
      return found.body;
    });
    place(table, [table.tHead].concat(bodies));
  }

  // The notice of "Comparable to this row": which row, its metric, how many rows share its key.
  function showLike(shown) {
    if (!like) {
      return;
    }
    like.hidden = !state.comparable;
    if (!state.comparable) {
      return;
    }
    var members = byKey.get(state.comparable) || [];
    var origin = members.filter(function (row) { return rowName(row) === state.row; })[0] || members[0];
    likeText.replaceChildren();
    if (!origin) {
      likeText.textContent = "No result has the comparison key " + state.comparable + ".";
      likeRemove.setAttribute("aria-label", "Remove the filter by comparison key");
      return;
    }
    var label = document.createElement("strong");
    label.textContent = cell(origin, "label");
    var metric = document.createElement("code");
    metric.textContent = cell(origin, "metric");
    var hidden = members.length - shown;
    likeText.append("Comparable to ", label, " (", metric, "): " + plural(members.length) +
                    (hidden > 0 ? " (" + hidden + " hidden by the other filters)" : ""));
    likeRemove.setAttribute("aria-label", "Remove the filter: comparable to " + cell(origin, "label"));
  }

  function render() {
    var pool = state.comparable ? (byKey.get(state.comparable) || []) : rows;
    var shown = pool.filter(matches);
    if (state.sort) {
      shown.sort(compare);
    }
    showRows(shown);
    showLike(shown.length);
    explainOrder(shown);
    var chosen = ["q"].concat(Object.keys(FILTERS)).filter(function (name) { return state[name]; }).length;
    if (active) {
      active.textContent = chosen ? "(" + chosen + " active)" : "";
    }
    count.textContent = shown.length === rows.length
      ? "All " + rows.length + " reported results"
      : "Showing " + shown.length + " of " + rows.length + " reported results";
    headers.forEach(function (th) {
      var column = th.getAttribute("data-column");
      if (column === state.sort) {
        th.setAttribute("aria-sort", state.dir === "desc" ? "descending" : "ascending");
      } else {
        th.removeAttribute("aria-sort");
      }
    });
  }

  // Sorting by value orders numbers, not evidence: say so when the rows are not alike.
  function explainOrder(shown) {
    if (!note) {
      return;
    }
    var units = new Set();
    var metrics = new Set();
    var records = new Set();
    var keys = new Set();
    shown.forEach(function (row) {
      units.add(cell(row, "unit"));
      metrics.add(cell(row, "metric"));
      records.add(cell(row, "source_record_id"));
      keys.add(row.key);
    });
    // rows of one comparison key share their metric and key conditions: only a unit can still differ
    var oneKey = keys.size === 1 && !keys.has(null);
    var mixed = [];
    if (units.size > 1) {
      mixed.push(units.size + " units");
    }
    if (metrics.size > 1 && !oneKey) {
      mixed.push(metrics.size + " metrics");
    }
    if (records.size > 1 && !oneKey) {
      mixed.push(records.size + " source records");
    }
    var byNumber = state.sort === "value" && mixed.length > 0;
    note.hidden = !byNumber;
    if (!byNumber) {
      note.textContent = "";
    } else if (state.group && !oneKey) {
      note.textContent = "Sorted by number inside each group: the rows of a group share their metric and key " +
        "conditions. Groups are not ranked against each other, and the rows of the last group, \u201c" +
        NO_KEY_GROUP + "\u201d, compare with nothing.";
    } else {
      note.textContent = "Sorted by number only. These rows hold " + mixed.join(", ") +
        ": their order is not a ranking. " + (oneKey ? "Mind the units."
          : "Filter to one metric and one record, or use \u201cComparable to this row\u201d, to compare like with like.");
    }
  }

  // "Comparable to this row": the rows of its key, the other filters cleared (Back returns to them).
  function showComparable(row) {
    var left = {};
    Object.keys(state).forEach(function (name) {
      left[name] = state[name];
    });
    state.q = "";
    Object.keys(FILTERS).forEach(function (name) {
      state[name] = "";
    });
    state.comparable = row.key;
    state.row = rowName(row);
    before = writeState(true) ? null : left;
    showStateInForm();
    render();
    if (like) {
      like.focus();
    }
  }

  // Back to the view before "Comparable to this row", its row's button focused.
  function removeComparable() {
    var origin = (byKey.get(state.comparable) || []).filter(function (row) { return rowName(row) === state.row; })[0];
    if (history.state && history.state.explorerCompared && !before) {
      history.back();  // popstate shows the view before
      return;
    }
    if (before) {
      state = before;
      before = null;
    } else {
      state.comparable = "";
      state.row = "";
    }
    writeState(false);
    showStateInForm();
    render();
    focusRow(origin);
  }

  function focusRow(row) {
    if (row && row.element && row.element.isConnected) {
      var control = row.element.querySelector(".compare");
      control.focus({ preventScroll: true });
      control.scrollIntoView({ block: "center" });
    }
  }

  function update() {
    state.q = form.elements.q.value.trim();
    Object.keys(FILTERS).forEach(function (name) {
      state[name] = form.elements[name].value;
    });
    writeState();
    render();
  }

  Object.keys(FILTERS).forEach(fillSelect);
  form.elements.q.value = state.q;
  if (groupToggle) {
    groupToggle.checked = state.group;
    groupToggle.parentNode.hidden = false;
    groupToggle.addEventListener("change", function () {
      state.group = groupToggle.checked;
      writeState(false);
      render();
    });
  }
  table.addEventListener("click", function (event) {
    var control = event.target.closest("a.compare");
    if (control && event.button === 0 && !(event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)) {
      event.preventDefault();  // the same view, without loading the page again (a new tab loads it)
      showComparable(rows[Number(control.getAttribute("data-order"))]);
    }
  });
  if (likeRemove) {
    likeRemove.addEventListener("click", removeComparable);
  }
  window.addEventListener("popstate", function () {
    var left = state;
    state = readState();
    before = null;
    showStateInForm();
    render();
    if (left.comparable && !state.comparable) {
      focusRow((byKey.get(left.comparable) || []).filter(function (row) { return rowName(row) === left.row; })[0]);
    }
  });
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
  });
  form.addEventListener("reset", function () {
    state.comparable = "";  // "Clear filters" clears "Comparable to this row" too
    state.row = "";
    setTimeout(update, 0);  // after the browser has cleared the fields
  });
  headers.forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () {
      var column = th.getAttribute("data-column");
      if (state.sort === column) {
        state.dir = state.dir === "asc" ? "desc" : "asc";
      } else {
        state.sort = column;
        state.dir = NUMERIC.has(column) ? "desc" : "asc";
      }
      writeState();
      render();
    });
  });
  if (box) {
    box.hidden = false;
    // On a phone the filters fold away until asked for, unless a shared address set some.
    var anyChosen = ["q"].concat(Object.keys(FILTERS)).some(function (name) { return state[name]; });
    if (window.matchMedia("(max-width: 480px)").matches && !anyChosen) {
      box.open = false;
    }
  }
  table.parentNode.hidden = false;
  render();
  if (window.evidencepress) {
    window.evidencepress.markScrollable(table.parentNode);
  }
})();
