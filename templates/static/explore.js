/* The explorer: filter and sort every reported result of the site.
 *
 * Data come from data/results.js, loaded with <script src> so that the page works from disk too,
 * column by column (output/data.py, results_script): each column's distinct cell texts (the
 * authored literal; null stays null) and each row's position among them. Filters and sorts work on
 * those positions (typed arrays, one per column), never on one object per row, and only one page of
 * rows (PAGE_ROWS) is in the document: the table, its count (announced in an aria-live region) and
 * its paging buttons say which. The state lives in the address (?model=...&sort=value&page=2), so
 * a view can be shared. Plain JavaScript, no framework.
 *
 * Comparability (schema/comparability.json): two rows with the same non-null comparison_key may be
 * compared. "Comparable to this row" shows the rows of one key (?comparable=<key>&row=<record>/<result
 * id>; the browser's Back, or the notice's Remove filter, returns to the view before); "Group by
 * comparison key" (?group=1) puts the rows of each key together under a header, groups in the order
 * of their first row under the current sort, and the rows without a key in a last group.
 *
 * Numbers are shown as core/numbers.py's for_reading shows them (forReading): the literal's own
 * digits, thousands separators in a whole part of four or more digits, a true minus sign.
 *
 * Values of the content (a model, a record id, a metric) are keys of Maps, or read with own() from
 * the objects of results.js: a model named __proto__ or constructor is a value like any other.
 */
(function () {
  "use strict";

  // core/numbers.py for_reading, on the literal's text: never through a float, which changes digits.
  var PLAIN = /^([-+]?)(\d+)(\.\d+)?$/;
  function forReading(literal) {
    var match = PLAIN.exec(literal);
    var text = literal;
    if (match && match[2].length >= 4) {
      var whole = match[2];
      var head = whole.length % 3 || 3;
      var parts = [whole.slice(0, head)];
      for (var at = head; at < whole.length; at += 3) {
        parts.push(whole.slice(at, at + 3));
      }
      text = match[1] + parts.join(",") + (match[3] || "");
    }
    return text.replace(/-/g, "\u2212");
  }
  window.evidencepressNumbers = { forReading: forReading };

  var data = window.EVIDENCEPRESS_RESULTS;
  var table = document.getElementById("explore-table");
  var form = document.getElementById("explore-filters");
  var count = document.getElementById("explore-count");
  var status = document.getElementById("explore-status");
  var note = document.getElementById("explore-note");
  var box = document.getElementById("explore-filter-box");
  var active = document.getElementById("explore-active");
  var like = document.getElementById("explore-like");
  var likeText = document.getElementById("explore-like-text");
  var likeRemove = document.getElementById("explore-like-remove");
  var groupToggle = document.getElementById("explore-group");
  var pager = document.getElementById("explore-pages");
  if (!table || !form || !count) {
    return;
  }
  if (!data || data.format !== 2) {
    count.textContent = "The results could not be loaded. Download them as CSV or JSON above.";
    return;
  }
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
  var PAGE_ROWS = 50;  // rows in the document at once
  var CHECKS = data.checks || {};
  var NUMERIC = new Set(["value", "conditions.concurrency"]);
  var NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
  var LONG_TEXT = 28;  // characters: a longer cell wraps inside a wider column (as on record pages)
  var KEY_CONDITIONS = data.key_conditions || null;
  var NO_KEY_GROUP = "Not comparable (a key condition unknown)";
  var root = table.getAttribute("data-root") || "";
  var total = data.count;
  var collator = new Intl.Collator("en", { numeric: true });

  // --- the columns: each a dictionary of texts and a typed array of positions in it ---------------
  var columnIndex = new Map();
  data.columns.forEach(function (name, index) {
    columnIndex.set(name, index);
  });
  var digitValue = new Uint8Array(128);
  for (var d = 0; d < data.code_digits.length; d += 1) {
    digitValue[data.code_digits.charCodeAt(d)] = d;
  }
  var decoded = new Array(data.columns.length);
  function codesOf(index) {
    if (!decoded[index]) {
      var text = data.codes[index];
      var width = data.widths[index];
      var codes = new Uint32Array(total);  // one array type everywhere: the loops over rows stay fast
      for (var r = 0, at = 0; r < total; r += 1) {
        var value = 0;
        for (var k = 0; k < width; k += 1, at += 1) {
          value = value * 64 + digitValue[text.charCodeAt(at)];
        }
        codes[r] = value;
      }
      decoded[index] = codes;
      data.codes[index] = null;  // the text is not needed again
    }
    return decoded[index];
  }
  function column(name) {
    var index = columnIndex.get(name);
    return index === undefined ? null : { index: index, values: data.dictionaries[index], codes: codesOf(index) };
  }
  function cell(row, name) {
    var found = column(name);
    return found === null ? null : found.values[found.codes[row]];
  }
  var keys = column("comparison_key");
  var pageColumn = column("page");

  function pageTitle(path) {
    return own(data.pages, path) || path;
  }
  function link(path) {
    var url = root + String(path).replace(/^\//, "");
    return window.evidencepress ? window.evidencepress.href(url) : url;
  }
  function counted(n) {
    return forReading(String(n));
  }
  function plural(n) {
    return counted(n) + (n === 1 ? " result" : " results");
  }
  function hasKey(row) {
    return keys !== null && keys.values[keys.codes[row]] !== null;
  }
  var keySizes = null;  // each comparison key's row count, by position in its dictionary
  function keySize(row) {
    if (keySizes === null) {
      keySizes = new Uint32Array(keys.values.length);
      for (var r = 0; r < total; r += 1) {
        keySizes[keys.codes[r]] += 1;
      }
    }
    return keySizes[keys.codes[row]];
  }
  function keyCode(key) {
    return keys === null ? -1 : keys.values.indexOf(key);
  }

  // --- the state in the address ---------------------------------------------------------------------
  function readState() {
    var params = new URLSearchParams(location.search);
    var found = { q: params.get("q") || "", sort: params.get("sort") || "", dir: params.get("dir") === "desc" ? "desc" : "asc",
                  comparable: params.get("comparable") || "", row: params.get("row") || "", group: params.get("group") === "1",
                  page: Math.max(1, parseInt(params.get("page") || "1", 10) || 1) };
    Object.keys(FILTERS).forEach(function (name) {
      found[name] = params.get(name) || "";
    });
    return found;
  }
  var state = readState();
  var before = null;  // the view "Comparable to this row" left, when the address could not keep it

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
    if (state.page > 1) {
      params.set("page", String(state.page));
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
    var found = column(FILTERS[name]);
    var counts = new Map();
    if (found !== null) {
      var tally = new Uint32Array(found.values.length);
      for (var r = 0; r < total; r += 1) {
        tally[found.codes[r]] += 1;
      }
      found.values.forEach(function (value, code) {
        if (value !== null) {
          counts.set(value, tally[code]);
        }
      });
    }
    var values = Array.from(counts.keys()).sort(function (a, b) { return a.localeCompare(b, "en"); });
    if (state[name] && !counts.has(state[name])) {
      values.push(state[name]);
      counts.set(state[name], 0);
    }
    var fragment = document.createDocumentFragment();
    values.forEach(function (value) {
      var option = document.createElement("option");
      var record = name === "record" ? own(data.records, value) : undefined;
      var check = name === "verification" ? own(CHECKS, value) : undefined;
      option.value = value;
      option.textContent = (record && record !== value ? record : check || value) + " (" + counts.get(value) + ")";
      fragment.appendChild(option);
    });
    select.appendChild(fragment);
    select.value = state[name];
  }

  // --- filtering: per column, which dictionary positions match; then one pass over the rows ------
  var lowered = [];  // each column's texts in lower case, made when first searched
  function lowerTexts(index) {
    if (!lowered[index]) {
      var values = data.dictionaries[index];
      lowered[index] = values.map(function (value, code) {
        var text = value === null ? "" : value.toLowerCase();
        return pageColumn !== null && index === pageColumn.index && value !== null
          ? text + " \u2029 " + pageTitle(value).toLowerCase() : text;
      });
    }
    return lowered[index];
  }
  // For one word: the columns where it occurs, each with a byte per dictionary position (1: occurs).
  // A word that contains a word met before (typing "cel", then
  // "cell") looks only at the positions where that one occurs.
  var searched = new Map();
  function wordHits(word) {
    if (searched.has(word)) {
      return searched.get(word);
    }
    var narrower = null;
    searched.forEach(function (hits, known) {
      if (word.indexOf(known) >= 0 && (narrower === null || hits.size < narrower.size)) {
        narrower = hits;
      }
    });
    var from = narrower === null ? null : new Map(narrower.map(function (hit) { return [hit.index, hit.marks]; }));
    var hits = [];
    hits.size = 0;
    hits.rows = null;  // a byte per row (1: the word is in the row), made when first filtered by
    for (var index = 0; index < data.columns.length; index += 1) {
      if (from !== null && !from.has(index)) {
        continue;
      }
      var texts = lowerTexts(index);
      var before = from === null ? null : from.get(index);
      var marks = new Uint8Array(texts.length);
      var found = 0;
      for (var code = 0; code < texts.length; code += 1) {
        if ((before === null || before[code] === 1) && texts[code].indexOf(word) >= 0) {
          marks[code] = 1;
          found += 1;
        }
      }
      if (found > 0) {
        hits.push({ index: index, codes: codesOf(index), marks: marks, all: found === texts.length });
        hits.size += found;
      }
    }
    if (searched.size > 64) {
      searched.clear();
    }
    searched.set(word, hits);
    return hits;
  }
  // The rows where a word occurs: each column where it does, over every row, once per word.
  function rowsWith(hits) {
    if (hits.rows === null) {
      var rows = new Uint8Array(total);
      hits.forEach(function (hit) {
        var codes = hit.codes;
        var marks = hit.marks;
        for (var r = 0; r < total; r += 1) {
          rows[r] |= marks[codes[r]];
        }
      });
      hits.rows = rows;
    }
    return hits.rows;
  }
  function selectedFilters() {
    var chosen = [];
    Object.keys(FILTERS).forEach(function (name) {
      var found = column(FILTERS[name]);
      if (state[name] && found !== null) {
        chosen.push({ codes: found.codes, code: found.values.indexOf(state[name]) });
      }
    });
    if (state.comparable && keys !== null) {
      chosen.push({ codes: keys.codes, code: keyCode(state.comparable) });
    }
    return chosen;
  }
  function matching(order) {
    var chosen = selectedFilters();
    // a word found in every text of a column is in every row: it filters nothing
    var words = state.q.toLowerCase().split(/\s+/).filter(Boolean).map(wordHits).filter(function (hits) {
      return !hits.some(function (hit) { return hit.all; });
    }).map(rowsWith);
    if (chosen.length === 0 && words.length === 0) {
      return order;  // every row, as sorted
    }
    var shown = new Uint32Array(order.length);
    var n = 0;
    rows: for (var i = 0; i < order.length; i += 1) {
      var row = order[i];
      for (var f = 0; f < chosen.length; f += 1) {
        if (chosen[f].codes[row] !== chosen[f].code) {
          continue rows;
        }
      }
      for (var w = 0; w < words.length; w += 1) {
        if (words[w][row] === 0) {
          continue rows;
        }
      }
      shown[n] = row;
      n += 1;
    }
    return shown.subarray(0, n);
  }

  // --- sorting: each column's texts ranked once, the rows then counted into place (stable) -------
  var identity = new Uint32Array(total);
  for (var r0 = 0; r0 < total; r0 += 1) {
    identity[r0] = r0;
  }
  var ranks = new Map();
  var orders = new Map();
  var plans = new Map();
  // A column's texts in sort order, in steps: a merge sort that can stop after any merge and go on later.
  function sortInSteps(items, compare) {
    var source = items.slice();
    var target = new Array(items.length);
    var width = 1;
    var low = 0;
    var merging = null;  // the merge under way: {k, i, j, middle, high}
    function begin() {
      var middle = Math.min(low + width, source.length);
      var high = Math.min(low + 2 * width, source.length);
      if (middle >= high || compare(source[middle - 1], source[middle]) <= 0) {
        for (var c = low; c < high; c += 1) {
          target[c] = source[c];  // in order already (results.js lists each column's texts nearly sorted)
        }
        low = high;
        return;
      }
      merging = { k: low, i: low, j: middle, middle: middle, high: high };
    }
    function go(until) {  // false when the time ran out first
      var m = merging;
      while (m.k < m.high) {
        if ((m.k & 1023) === 0 && performance.now() > until) {
          return false;
        }
        if (m.i < m.middle && (m.j >= m.high || compare(source[m.i], source[m.j]) <= 0)) {
          target[m.k] = source[m.i];
          m.i += 1;
        } else {
          target[m.k] = source[m.j];
          m.j += 1;
        }
        m.k += 1;
      }
      low = m.high;
      merging = null;
      return true;
    }
    return {
      step: function (budget) {  // milliseconds; true when sorted
        var until = performance.now() + budget;
        while (width < source.length) {
          while (low < source.length || merging !== null) {
            if (merging === null) {
              begin();
            }
            if (merging !== null && !go(until)) {
              return false;
            }
            if (performance.now() > until) {
              return false;
            }
          }
          var swap = source;
          source = target;
          target = swap;
          width *= 2;
          low = 0;
        }
        return true;
      },
      result: function () { return source; }
    };
  }
  // How a column's texts compare: numbers (of a numeric column) before words, words as people sort
  // them ("run 9" before "run 10"), an article by its title.
  function rankPlan(name) {
    if (!plans.has(name)) {
      var found = column(name);
      var values = found.values;
      var numbers = values.map(function (value) {
        return value !== null && NUMERIC.has(name) && NUMBER.test(value) ? parseFloat(value) : NaN;
      });
      var texts = name === "page" ? values.map(function (v) { return v === null ? null : pageTitle(v); }) : values;
      var compare = function (a, b) {
        var x = numbers[a];
        var y = numbers[b];
        if (!isNaN(x) || !isNaN(y)) {
          return isNaN(x) ? 1 : (isNaN(y) ? -1 : x - y);
        }
        return collator.compare(texts[a], texts[b]);
      };
      var positions = [];
      values.forEach(function (value, code) {
        if (value !== null) {
          positions.push(code);
        }
      });
      plans.set(name, { found: found, compare: compare, job: sortInSteps(positions, compare) });
    }
    return plans.get(name);
  }
  // Each text's rank in its column (equal texts, equal ranks; null after every text).
  function rankOf(name) {
    if (!ranks.has(name)) {
      var plan = rankPlan(name);
      plan.job.step(Infinity);
      var positions = plan.job.result();
      var rank = new Uint32Array(plan.found.values.length).fill(positions.length);
      positions.forEach(function (code, at) {
        rank[code] = at > 0 && plan.compare(positions[at - 1], code) === 0 ? rank[positions[at - 1]] : at;
      });
      ranks.set(name, { rank: rank, nulls: positions.length, codes: plan.found.codes });
      plans.delete(name);
    }
    return ranks.get(name);
  }
  // After the first page is shown: the sort order of every sortable column and the texts a search
  // reads, a few milliseconds at a time, so that no click or keystroke waits for them later.
  function prepareInSteps() {
    var work = [];
    Array.prototype.forEach.call(table.querySelectorAll("th[data-column]"), function (th) {
      var name = th.getAttribute("data-column");
      if (columnIndex.has(name)) {
        work.push(function () {
          return ranks.has(name) || rankPlan(name).job.step(8) && (rankOf(name), true);
        });
      }
    });
    data.columns.forEach(function (name, index) {
      work.push(function () {
        lowerTexts(index);
        return true;
      });
    });
    function next() {
      var started = performance.now();
      while (work.length > 0 && performance.now() - started < 10) {
        if (work[0]()) {
          work.shift();
        }
      }
      if (work.length > 0) {
        setTimeout(next, 0);
      }
    }
    setTimeout(next, 0);
  }
  // Every row in the order of a column (not reported last either way; equal values in table order).
  function orderBy(name, dir) {
    var id = name + " " + dir;
    if (!orders.has(id)) {
      var ranked = rankOf(name);
      var top = ranked.nulls;
      var bucket = new Uint32Array(top + 2);
      var key = new Uint32Array(total);
      for (var r = 0; r < total; r += 1) {
        var k = ranked.rank[ranked.codes[r]];
        key[r] = k === top ? top : (dir === "desc" ? top - 1 - k : k);
        bucket[key[r] + 1] += 1;
      }
      for (var b = 1; b < bucket.length; b += 1) {
        bucket[b] += bucket[b - 1];
      }
      var order = new Uint32Array(total);
      for (r = 0; r < total; r += 1) {
        order[bucket[key[r]]] = r;
        bucket[key[r]] += 1;
      }
      orders.set(id, order);
    }
    return orders.get(id);
  }
  function sortedRows() {
    return state.sort && columnIndex.has(state.sort) ? orderBy(state.sort, state.dir) : identity;
  }

  // The shown rows by comparison key: groups in the order of their first row, the rows without a key last.
  function grouped(shown) {
    var firstSeen = new Map();
    var groups = [];
    for (var i = 0; i < shown.length; i += 1) {
      var code = hasKey(shown[i]) ? keys.codes[shown[i]] : -1;
      var group = firstSeen.get(code);
      if (group === undefined) {
        group = { code: code, rows: [] };
        firstSeen.set(code, group);
        if (code !== -1) {
          groups.push(group);
        }
      }
      group.rows.push(shown[i]);
    }
    if (firstSeen.has(-1)) {
      groups.push(firstSeen.get(-1));
    }
    return groups;
  }

  // --- the rows on the page ---------------------------------------------------------------------------
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
  function numberCell(value) {
    return textCell(value !== null && NUMBER.test(value) ? forReading(value) : value, "num");
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
  function rowName(row) {
    return cell(row, "source_record_id") + "/" + (cell(row, "result_id") || cell(row, "label"));
  }
  function notComparable(row) {
    var metric = cell(row, "metric");
    if (metric === null) {
      return "Not comparable: the result names no metric";
    }
    var unknown = (own(KEY_CONDITIONS, metric) || []).filter(function (key) {
      return columnIndex.has("conditions." + key) && cell(row, "conditions." + key) === null;
    });
    if (unknown.length === 0) {
      return "Not comparable: a key condition is not reported";
    }
    return "Not comparable: " + (unknown.length === 1 ? "a key condition is" : "key conditions are") +
      " not reported (" + unknown.join(", ") + ")";
  }
  function compareCell(row) {
    var td = document.createElement("td");
    td.className = "compare-cell";
    var label = cell(row, "label");
    var control;
    if (hasKey(row)) {
      var size = keySize(row);
      control = document.createElement("a");
      control.className = "compare";
      control.href = "?comparable=" + encodeURIComponent(cell(row, "comparison_key")) + "&row=" + encodeURIComponent(rowName(row));
      control.textContent = plural(size);
      control.setAttribute("data-row", String(row));
      control.setAttribute("aria-label", plural(size) + " comparable to this row: " + label);  // the visible text first (WCAG 2.5.3)
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
  function makeRow(row, position) {
    var tr = document.createElement("tr");
    tr.setAttribute("data-row", String(row));
    if (position !== null) {
      tr.setAttribute("aria-rowindex", String(position + 2));  // the header is row 1
    }
    var label = document.createElement("th");
    label.scope = "row";
    label.textContent = cell(row, "label");
    var statistic = cell(row, "statistic");
    if (statistic) {
      label.title = statistic;
    }
    tr.appendChild(label);
    tr.appendChild(compareCell(row));
    tr.appendChild(numberCell(cell(row, "value")));
    tr.appendChild(textCell(cell(row, "unit")));
    tr.appendChild(textCell(cell(row, "metric"), "code"));
    tr.appendChild(textCell(cell(row, "conditions.model")));
    tr.appendChild(textCell(cell(row, "conditions.system")));
    tr.appendChild(textCell(cell(row, "conditions.engine")));
    tr.appendChild(numberCell(cell(row, "conditions.concurrency")));
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
  function groupHead(group, size) {
    var tr = document.createElement("tr");
    tr.className = "group-head";
    var th = document.createElement("th");
    th.scope = "rowgroup";
    th.colSpan = table.tHead.rows[0].cells.length;
    var title = document.createElement("span");
    title.className = "group-title";
    if (group.code === -1) {
      var name = document.createElement("strong");
      name.textContent = NO_KEY_GROUP;
      title.appendChild(name);
    } else {
      var first = group.rows[0];
      var metric = document.createElement("code");
      metric.textContent = cell(first, "metric");
      title.appendChild(metric);
      var shared = (own(KEY_CONDITIONS, cell(first, "metric")) || []).filter(function (key) {
        return columnIndex.has("conditions." + key);
      }).map(function (key) {
        var value = cell(first, "conditions." + key);
        return key + ": " + (value !== null && NUMBER.test(value) ? forReading(value) : value);
      });
      if (shared.length > 0) {
        var conditions = document.createElement("span");
        conditions.className = "group-conditions";
        conditions.textContent = shared.join(" \u00b7 ");
        title.append(" ", conditions);
      }
    }
    var sizeText = document.createElement("span");
    sizeText.className = "group-count";
    sizeText.textContent = plural(size);
    title.append(" ", sizeText);
    th.appendChild(title);
    tr.appendChild(th);
    return tr;
  }

  // One page of rows into the table: a <tbody> (a <tbody class="group"> per group on the page),
  // unless the page holds the rows it holds already (a keystroke that changed nothing on it).
  var shownPage = "";
  function pageKey(view, start, end) {
    return [start, view.length].concat(Array.prototype.slice.call(view.rows, start, end)).join(" ");
  }
  function showRows(view) {
    var start = (state.page - 1) * PAGE_ROWS;
    var end = Math.min(view.length, start + PAGE_ROWS);
    var key = state.group ? "" : pageKey(view, start, end);
    if (key !== "" && key === shownPage) {
      return;
    }
    shownPage = key;
    var bodies = [];
    if (!state.group) {
      var body = document.createElement("tbody");
      for (var i = start; i < end; i += 1) {
        body.appendChild(makeRow(view.rows[i], i));
      }
      bodies.push(body);
    } else {
      var at = 0;
      view.groups.forEach(function (group) {
        var from = Math.max(start, at);
        var to = Math.min(end, at + group.rows.length);
        if (from < to) {
          var part = document.createElement("tbody");
          part.className = "group";
          part.appendChild(groupHead(group, group.rows.length));
          for (var j = from; j < to; j += 1) {
            part.appendChild(makeRow(group.rows[j - at], null));
          }
          bodies.push(part);
        }
        at += group.rows.length;
      });
    }
    Array.prototype.slice.call(table.tBodies).forEach(function (old) { old.remove(); });
    bodies.forEach(function (part) { table.appendChild(part); });
    if (state.group) {
      table.removeAttribute("aria-rowcount");
    } else {
      table.setAttribute("aria-rowcount", String(view.length + 1));
    }
    showPager(view.length, start, end);
  }

  function pageCount(length) {
    return Math.max(1, Math.ceil(length / PAGE_ROWS));
  }
  function showPager(length, start, end) {
    if (!pager) {
      return;
    }
    var pages = pageCount(length);
    pager.querySelector(".pages-text").textContent = length === 0 ? "" :
      "Rows " + counted(start + 1) + "\u2013" + counted(end) + " of " +
      counted(length) + " (page " + state.page + " of " + pages + ")";
    pager.querySelector("[data-page='previous']").disabled = state.page <= 1;
    pager.querySelector("[data-page='next']").disabled = state.page >= pages;
  }

  // --- one view: filter, sort, group, then the page of it --------------------------------------------
  function view() {
    var shown = matching(sortedRows());
    if (!state.group) {
      return { length: shown.length, rows: shown, groups: null, all: shown };
    }
    return { length: shown.length, rows: null, groups: grouped(shown), all: shown };
  }

  function render() {
    var current = view();
    state.page = Math.min(state.page, pageCount(current.length));
    showRows(current);
    showLike(current.length);
    explainOrder(current.all);
    var chosen = ["q"].concat(Object.keys(FILTERS)).filter(function (name) { return state[name]; }).length;
    if (active) {
      active.textContent = chosen ? "(" + chosen + " active)" : "";
    }
    var said = current.length === total
      ? "All " + counted(total) + " reported results"
      : "Showing " + counted(current.length) + " of " + counted(total) + " reported results";
    count.textContent = said;
    announce(said);
    Array.prototype.forEach.call(table.querySelectorAll("th[data-column]"), function (th) {
      if (th.getAttribute("data-column") === state.sort) {
        th.setAttribute("aria-sort", state.dir === "desc" ? "descending" : "ascending");
      } else {
        th.removeAttribute("aria-sort");
      }
    });
  }

  // The count, said once typing pauses (a screen reader would otherwise read every keystroke's count).
  var announcing = 0;
  function announce(text) {
    if (!status) {
      return;
    }
    clearTimeout(announcing);
    announcing = setTimeout(function () {
      status.textContent = text;
    }, 400);
  }

  function showLike(shown) {
    if (!like) {
      return;
    }
    like.hidden = !state.comparable;
    if (!state.comparable) {
      return;
    }
    var code = keyCode(state.comparable);
    var members = [];
    if (code >= 0) {
      for (var r = 0; r < total; r += 1) {
        if (keys.codes[r] === code) {
          members.push(r);
        }
      }
    }
    var origin = members.filter(function (row) { return rowName(row) === state.row; })[0];
    if (origin === undefined) {
      origin = members[0];
    }
    likeText.replaceChildren();
    if (origin === undefined) {
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

  // Sorting by value orders numbers, not evidence: say so when the rows are not alike.
  function distinct(name, shown, limit) {
    var found = column(name);
    if (found === null) {
      return 0;
    }
    var seen = new Set();
    for (var i = 0; i < shown.length && seen.size < limit; i += 1) {
      seen.add(found.codes[shown[i]]);
    }
    return seen.size;
  }
  function explainOrder(shown) {
    if (!note) {
      return;
    }
    if (state.sort !== "value") {
      note.hidden = true;
      note.textContent = "";
      return;
    }
    var seenKeys = new Set();
    for (var i = 0; i < shown.length && seenKeys.size < 2; i += 1) {
      seenKeys.add(hasKey(shown[i]) ? keys.codes[shown[i]] : -1);
    }
    var oneKey = seenKeys.size === 1 && !seenKeys.has(-1);
    var mixed = [];
    var units = distinct("unit", shown, Infinity);
    var metrics = distinct("metric", shown, Infinity);
    var records = distinct("source_record_id", shown, Infinity);
    if (units > 1) {
      mixed.push(units + " units");
    }
    if (metrics > 1 && !oneKey) {
      mixed.push(metrics + " metrics");
    }
    if (records > 1 && !oneKey) {
      mixed.push(records + " source records");
    }
    note.hidden = mixed.length === 0;
    if (mixed.length === 0) {
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

  // --- actions -----------------------------------------------------------------------------------------
  function showComparable(row) {
    var left = {};
    Object.keys(state).forEach(function (name) {
      left[name] = state[name];
    });
    state.q = "";
    Object.keys(FILTERS).forEach(function (name) {
      state[name] = "";
    });
    state.comparable = cell(row, "comparison_key");
    state.row = rowName(row);
    state.page = 1;
    before = writeState(true) ? null : left;
    showStateInForm();
    render();
    if (like) {
      like.focus();
    }
  }

  function removeComparable() {
    var origin = state.row;
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

  // The "Comparable to this row" control of the row named ``name``, when it is on the page shown.
  function focusRow(name) {
    var controls = table.querySelectorAll("tbody .compare");
    for (var i = 0; i < controls.length; i += 1) {
      var row = Number(controls[i].closest("tr").getAttribute("data-row"));
      if (rowName(row) === name) {
        controls[i].focus({ preventScroll: true });
        controls[i].scrollIntoView({ block: "center" });
        return;
      }
    }
  }

  function update() {
    state.q = form.elements.q.value.trim();
    Object.keys(FILTERS).forEach(function (name) {
      state[name] = form.elements[name].value;
    });
    state.page = 1;
    writeState();
    render();
  }

  // Listeners first; then, each in a task of its own (no long task on a slow phone): the filters'
  // options, the first page of rows, and the work that later clicks and keystrokes would wait for.
  function start() {
    if (groupToggle) {
      groupToggle.parentNode.hidden = false;
      groupToggle.addEventListener("change", function () {
        state.group = groupToggle.checked;
        state.page = 1;
        writeState(false);
        render();
      });
    }
    table.addEventListener("click", function (event) {
      var control = event.target.closest("a.compare");
      if (control && event.button === 0 && !(event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)) {
        event.preventDefault();  // the same view, without loading the page again (a new tab loads it)
        showComparable(Number(control.getAttribute("data-row")));
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
        focusRow(left.row);
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
    Array.prototype.forEach.call(table.querySelectorAll("th[data-column]"), function (th) {
      th.querySelector("button").addEventListener("click", function () {
        var name = th.getAttribute("data-column");
        if (state.sort === name) {
          state.dir = state.dir === "asc" ? "desc" : "asc";
        } else {
          state.sort = name;
          state.dir = NUMERIC.has(name) ? "desc" : "asc";
        }
        state.page = 1;
        writeState();
        render();
      });
    });
    if (pager) {
      pager.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-page]");
        if (!button || button.disabled) {
          return;
        }
        state.page += button.getAttribute("data-page") === "next" ? 1 : -1;
        writeState();
        render();
        table.parentNode.scrollTop = 0;
      });
    }
    if (box) {
      box.hidden = false;
    }
    setTimeout(function () {
      Object.keys(FILTERS).forEach(fillSelect);
      showStateInForm();
      setTimeout(function () {
        render();
        if (window.evidencepress) {
          window.evidencepress.markScrollable(table.parentNode);
        }
        prepareInSteps();
      }, 0);
    }, 0);
  }

  start();
})();
