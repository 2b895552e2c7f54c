// evidencepress serve: reload after a good rebuild, show the problems of a failed one.
// Injected by the development server only; never part of a published build.
(function () {
  "use strict";
  var shown = null;
  var overlayId = "evidencepress-overlay";

  function overlay(report) {
    var box = document.getElementById(overlayId);
    if (!box) {
      box = document.createElement("div");
      box.id = overlayId;
      box.setAttribute("role", "alert");
      box.style.cssText = "position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:24px;" +
        "background:rgba(20,20,24,.94);color:#f5f5f5;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace";
      var title = document.createElement("p");
      title.textContent = "The build failed; this page is the last good build. Fix the file and save.";
      title.style.cssText = "margin:0 0 12px;font-weight:bold;color:#ff8a80";
      var pre = document.createElement("pre");
      pre.style.cssText = "margin:0;white-space:pre-wrap";
      box.appendChild(title);
      box.appendChild(pre);
      document.body.appendChild(box);
    }
    box.lastChild.textContent = report;
  }

  function connect() {
    var events = new EventSource("/__evidencepress/events");
    events.onmessage = function (message) {
      var state = JSON.parse(message.data);
      if (shown === null) {
        shown = state.generation;
        if (state.failed) { overlay(state.report); }
        return;
      }
      if (state.generation === shown) { return; }
      shown = state.generation;
      if (state.failed) { overlay(state.report); } else { window.location.reload(); }
    };
  }

  if (window.EventSource) { connect(); }
}());
