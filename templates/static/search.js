/* The search page: Pagefind's UI over the index built with the site (pagefind/), and over the
 * shards of a large site's index (data-merge: bundles of index files merged into the first one).
 *
 * Three things Pagefind's UI leaves to the page: its input gets the page's <label> (the template's,
 * visually hidden; Pagefind names it only by a title), its count of results is said once typing pauses
 * (the template's status region), and the search a shared address asks for (?q=) runs only when
 * every filter has loaded. Pagefind loads each filter's file on its own; a search that ends before
 * one of them has loaded lists that filter nowhere (the Engine filter missing on some loads), and the
 * UI keeps the filters of that search.
 */
(function () {
  "use strict";
  var host = document.getElementById("search");
  if (!host) {
    return;
  }
  var offline = document.getElementById("search-offline");
  var status = document.getElementById("search-status");
  var label = document.getElementById("search-label");
  function unavailable() {
    if (offline) {
      offline.hidden = false;
    }
  }
  // Pagefind loads its index with fetch() and import(), which browsers refuse for local files.
  if (location.protocol === "file:") {
    unavailable();
    return;
  }
  var bundle = new URL(host.getAttribute("data-bundle"), location.href).href;
  var baseUrl = new URL(host.getAttribute("data-root"), location.href).pathname;
  var shards = (host.getAttribute("data-merge") || "").split(" ").filter(Boolean).map(function (path) {
    return new URL(path, location.href).href;
  });

  function labelInput() {
    var input = host.querySelector(".pagefind-ui__search-input");
    if (input && label) {
      input.id = label.getAttribute("data-for");  // the label names it once it is there (valid HTML before)
      label.htmlFor = input.id;
    }
  }

  // The UI's message ("12 results for kimi"), said by the status region once it has settled.
  function announceCounts() {
    if (!status) {
      return;
    }
    var waiting = 0;
    new MutationObserver(function () {
      clearTimeout(waiting);
      waiting = setTimeout(function () {
        var message = host.querySelector(".pagefind-ui__message");
        var text = message ? message.textContent.trim() : "";
        if (text !== status.textContent) {
          status.textContent = text;
        }
      }, 500);
    }).observe(host, { childList: true, subtree: true, characterData: true });
  }

  // Every filter's file, loaded through the same module the UI imports (one instance per URL).
  function filtersLoaded() {
    return import(bundle + "pagefind.js").then(function (pagefind) {
      return pagefind.filters();
    });
  }

  // The shards merged into that module, one after the other (their order is the site's), before the
  // UI is made: the UI then searches them all, and filtersLoaded waits for their filters too.
  function shardsMerged() {
    return import(bundle + "pagefind.js").then(function (pagefind) {
      return shards.reduce(function (done, shard) {
        return done.then(function () {
          return pagefind.mergeIndex(shard, { baseUrl: baseUrl });
        });
      }, Promise.resolve());
    });
  }

  var style = document.createElement("link");
  style.rel = "stylesheet";
  style.href = bundle + "pagefind-ui.css";
  document.head.appendChild(style);
  var script = document.createElement("script");
  script.src = bundle + "pagefind-ui.js";
  script.onerror = unavailable;
  script.onload = function () {
    (shards.length ? shardsMerged() : Promise.resolve()).then(start, start);
  };
  function start() {
    var ui = new window.PagefindUI({
      element: "#search",
      bundlePath: bundle,
      baseUrl: baseUrl,
      showSubResults: true,
      showImages: false,
      autofocus: true,
      processTerm: function (term) {
        try {
          history.replaceState(null, "", term ? "?q=" + encodeURIComponent(term) : location.pathname);
        } catch (error) {
          // a history that refuses the change keeps the old address; search still works
        }
        return term;
      }
    });
    labelInput();
    announceCounts();
    var query = new URLSearchParams(location.search).get("q");
    filtersLoaded().then(function () {
      if (query) {
        ui.triggerSearch(query);
      }
    }, function () {
      if (query) {
        ui.triggerSearch(query);  // the search says what went wrong
      }
    });
  }
  document.body.appendChild(script);
})();
