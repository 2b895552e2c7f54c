/* The search page: Pagefind's UI over the index built with the site (pagefind/). */
(function () {
  "use strict";
  var host = document.getElementById("search");
  if (!host) {
    return;
  }
  var offline = document.getElementById("search-offline");
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
  var style = document.createElement("link");
  style.rel = "stylesheet";
  style.href = bundle + "pagefind-ui.css";
  document.head.appendChild(style);
  var script = document.createElement("script");
  script.src = bundle + "pagefind-ui.js";
  script.onerror = unavailable;
  script.onload = function () {
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
    var query = new URLSearchParams(location.search).get("q");
    if (query) {
      ui.triggerSearch(query);
    }
  };
  document.body.appendChild(script);
})();
