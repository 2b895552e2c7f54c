/* The explorer: filter and sort every reported result of the site.
 *
 * Rows come from data/results.js (the rows of data/results.json, each cell as
 * its authored text), loaded with <script src> so that the page works from
 * disk too. The filter and sort state lives in the address (?model=...&sort=value),
 * so a view can be shared. Plain JavaScript, no framework.
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
  if (!table || !form || !count) {
    return;
  }
  if (!data) {
    count.textContent = "The results could not be loaded. Download them as CSV or JSON above.";
    return;
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
  var NUMERIC = { "value": true, "conditions.concurrency": true };
  var LONG_TEXT = 28;  // characters: a longer cell wraps inside a wider column (as on record pages)
  var root = table.getAttribute("data-root") || "";
  var columnIndex = {};
  data.columns.forEach(function (name, index) {
    columnIndex[name] = index;
  });
  var rows = data.rows.map(function (cells, order) {
    return { cells: cells, order: order, text: searchText(cells) };
  });
  var body = table.tBodies[0];
  var headers = Array.prototype.slice.call(table.querySelectorAll("th[data-column]"));
  var state = readState();

  function cell(row, column) {
    var index = columnIndex[column];
    return index === undefined ? null : row.cells[index];
  }

  function pageTitle(path) {
    return (data.pages && data.pages[path]) || path;
  }

  function searchText(cells) {
    var parts = cells.filter(function (value) { return value !== null; });
    var page = cells[columnIndex.page];
    parts.push(pageTitle(page));
    return parts.join(" \u2029 ").toLowerCase();
  }

  function link(path) {
    var url = root + String(path).replace(/^\//, "");
    return window.evidencepress ? window.evidencepress.href(url) : url;
  }

  function readState() {
    var params = new URLSearchParams(location.search);
    var found = { q: params.get("q") || "", sort: params.get("sort") || "", dir: params.get("dir") === "desc" ? "desc" : "asc" };
    Object.keys(FILTERS).forEach(function (name) {
      found[name] = params.get(name) || "";
    });
    return found;
  }

  function writeState() {
    var params = new URLSearchParams();
    ["q"].concat(Object.keys(FILTERS)).forEach(function (name) {
      if (state[name]) {
        params.set(name, state[name]);
      }
    });
    if (state.sort) {
      params.set("sort", state.sort);
      params.set("dir", state.dir);
    }
    var query = params.toString();
    try {
      history.replaceState(null, "", query ? "?" + query : location.pathname);
    } catch (error) {
      // some browsers refuse to change the address of a local file; the view still works
    }
  }

  function fillSelect(name) {
    var select = form.elements[name];
    var counts = {};
    rows.forEach(function (row) {
      var value = cell(row, FILTERS[name]);
      if (value !== null) {
        counts[value] = (counts[value] || 0) + 1;
      }
    });
    var values = Object.keys(counts).sort(function (a, b) { return a.localeCompare(b, "en"); });
    if (state[name] && !counts[state[name]]) {
      values.push(state[name]);
      counts[state[name]] = 0;
    }
    values.forEach(function (value) {
      var option = document.createElement("option");
      option.value = value;
      option.textContent = name === "record" && data.records && data.records[value] && data.records[value] !== value
        ? data.records[value] + " (" + counts[value] + ")"
        : (name === "verification" && CHECKS[value] ? CHECKS[value] : value) + " (" + counts[value] + ")";
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
    if (NUMERIC[column] && !isNaN(parseFloat(x)) && !isNaN(parseFloat(y))) {
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

  function rowElement(row) {
    var tr = document.createElement("tr");
    var label = document.createElement("th");
    label.scope = "row";
    label.textContent = cell(row, "label");
    var statistic = cell(row, "statistic");
    if (statistic) {
      label.title = statistic;
    }
    tr.appendChild(label);
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
    var checkCell = textCell(check === null ? null : (CHECKS[check] || check));
    if (check !== null) {
      checkCell.className = (checkCell.className ? checkCell.className + " " : "") + "check-label check-" + check;
    }
    tr.appendChild(checkCell);
    return tr;
  }

  function render() {
    var shown = rows.filter(matches);
    if (state.sort) {
      shown.sort(compare);
    }
    var fragment = document.createDocumentFragment();
    shown.forEach(function (row) {
      fragment.appendChild(rowElement(row));
    });
    body.replaceChildren(fragment);
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
    var units = {};
    var metrics = {};
    var records = {};
    shown.forEach(function (row) {
      units[cell(row, "unit")] = true;
      metrics[cell(row, "metric")] = true;
      records[cell(row, "source_record_id")] = true;
    });
    var mixed = [];
    if (Object.keys(units).length > 1) {
      mixed.push(Object.keys(units).length + " units");
    }
    if (Object.keys(metrics).length > 1) {
      mixed.push(Object.keys(metrics).length + " metrics");
    }
    if (Object.keys(records).length > 1) {
      mixed.push(Object.keys(records).length + " source records");
    }
    var byNumber = state.sort === "value" && mixed.length > 0;
    note.hidden = !byNumber;
    note.textContent = byNumber
      ? "Sorted by number only. These rows hold " + mixed.join(", ") +
        ": their order is not a ranking. Filter to one metric and one record to compare like with like."
      : "";
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
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
  });
  form.addEventListener("reset", function () {
    setTimeout(update, 0);  // after the browser has cleared the fields
  });
  headers.forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () {
      var column = th.getAttribute("data-column");
      if (state.sort === column) {
        state.dir = state.dir === "asc" ? "desc" : "asc";
      } else {
        state.sort = column;
        state.dir = NUMERIC[column] ? "desc" : "asc";
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
