/* evidencepress: what every page shares. The site reads fine without it. */
(function () {
  "use strict";
  var fromDisk = location.protocol === "file:";

  // Opened from disk, a link to a folder shows a file listing instead of the page:
  // point it at the folder's index.html. Served over http(s), links stay as they are.
  function href(url) {
    if (!fromDisk || /^[a-z][a-z0-9+.-]*:/i.test(url) || url.charAt(0) === "#" || url.charAt(0) === "?") {
      return url;
    }
    var cut = url.search(/[?#]/);
    var path = cut < 0 ? url : url.slice(0, cut);
    var rest = cut < 0 ? "" : url.slice(cut);
    return path.slice(-1) === "/" ? path + "index.html" + rest : url;
  }

  // A table wider than its frame gets a line that says it scrolls (the frame's edge shadow says it too).
  function markScrollable(frame) {
    var hint = frame.previousElementSibling;
    var hasHint = hint !== null && hint.classList.contains("scroll-hint");
    var overflows = frame.scrollWidth > frame.clientWidth + 1;
    if (overflows && !hasHint) {
      hint = document.createElement("p");
      hint.className = "scroll-hint";
      hint.setAttribute("aria-hidden", "true");
      hint.textContent = "Scroll sideways for more columns \u2192";
      frame.parentNode.insertBefore(hint, frame);
    } else if (!overflows && hasHint) {
      hint.remove();
    }
  }

  function markAll() {
    document.querySelectorAll(".table-scroll").forEach(markScrollable);
  }

  // "Cite this page": a Copy button on each citation format, where the page may write to the clipboard
  // (served over https or from localhost; not from disk). Without it the text is there to select.
  function addCopyButtons() {
    if (!navigator.clipboard || !window.isSecureContext) {
      return;
    }
    document.querySelectorAll(".cite pre").forEach(function (pre) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy";
      button.textContent = "Copy";
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(pre.textContent).then(function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = "Copy"; }, 2000);
        }, function () {
          button.textContent = "Select and copy";
        });
      });
      pre.parentNode.insertBefore(button, pre);
    });
  }

  // The table of contents marks the section being read (aria-current): the last of its headings above
  // the upper third of the window. An IntersectionObserver says when that may have changed; without
  // JavaScript the list is simply there.
  function followSections() {
    var links = document.querySelectorAll(".toc a[href^='#']");
    if (!links.length || !("IntersectionObserver" in window)) {
      return;
    }
    var headings = [];
    links.forEach(function (link) {
      var heading = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
      if (heading) {
        headings.push({ heading: heading, link: link });
      }
    });
    function mark() {
      var current = null;
      headings.forEach(function (item) {
        if (item.heading.getBoundingClientRect().top < window.innerHeight / 3) {
          current = item;
        }
      });
      headings.forEach(function (item) {
        if (item === current) {
          item.link.setAttribute("aria-current", "true");
        } else {
          item.link.removeAttribute("aria-current");
        }
      });
    }
    var observer = new IntersectionObserver(mark, { rootMargin: "0px 0px -66% 0px" });
    headings.forEach(function (item) { observer.observe(item.heading); });
    // A jump (a link, the End key) may pass a heading without it ever meeting the top third.
    var queued = false;
    window.addEventListener("scroll", function () {
      if (!queued) {
        queued = true;
        requestAnimationFrame(function () { queued = false; mark(); });
      }
    }, { passive: true });
    mark();
  }

  // An inline value's "i" links its note in the list after the body; here it becomes a button that
  // shows the note beside the value (Escape, the close button or a click elsewhere hides it again).
  function addValueNotes() {
    var opener = null;
    var box = document.createElement("div");
    box.className = "ev-popover";
    box.id = "ev-popover";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", "About this value");
    box.hidden = true;
    var text = document.createElement("div");
    var close = document.createElement("button");
    close.type = "button";
    close.className = "ev-close";
    close.setAttribute("aria-label", "Close");
    close.textContent = "\u00d7";
    box.appendChild(text);
    box.appendChild(close);
    function hide(refocus) {
      if (box.hidden) {
        return;
      }
      box.hidden = true;
      if (opener) {
        opener.setAttribute("aria-expanded", "false");
        if (refocus !== false) {
          opener.focus();
        }
      }
      opener = null;
    }
    function show(link) {
      var note = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
      if (!note) {
        return;
      }
      if (opener) {
        opener.setAttribute("aria-expanded", "false");
      }
      opener = link;
      text.innerHTML = note.innerHTML;
      var shared = document.getElementById(note.getAttribute("data-shared") || "");
      if (shared) {
        var more = document.createElement("p");
        more.innerHTML = shared.innerHTML;
        text.appendChild(more);
      }
      box.setAttribute("aria-label", link.getAttribute("aria-label"));
      box.hidden = false;
      link.setAttribute("aria-expanded", "true");
      var at = link.getBoundingClientRect();
      var left = Math.max(8, Math.min(at.left - 12, window.innerWidth - box.offsetWidth - 8));
      var below = at.bottom + 6 + box.offsetHeight < window.innerHeight;
      box.style.left = left + "px";
      box.style.top = (below ? at.bottom + 6 : Math.max(8, at.top - box.offsetHeight - 6)) + "px";
      close.focus();
    }
    var links = document.querySelectorAll("a.ev-more[href^='#']");
    if (!links.length) {
      return;
    }
    document.body.appendChild(box);
    links.forEach(function (link) {
      link.setAttribute("role", "button");
      link.setAttribute("aria-expanded", "false");
      link.setAttribute("aria-controls", box.id);
      link.addEventListener("click", function (event) {
        event.preventDefault();
        if (opener === link) {
          hide();
        } else {
          show(link);
        }
      });
      link.addEventListener("keydown", function (event) {
        if (event.key === " ") {
          event.preventDefault();
          link.click();
        }
      });
    });
    close.addEventListener("click", hide);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {
        hide();
      }
    });
    document.addEventListener("click", function (event) {
      if (!box.hidden && !box.contains(event.target) && event.target.closest && !event.target.closest("a.ev-more")) {
        hide(false);
      }
    });
    window.addEventListener("scroll", function () {
      if (!box.hidden && opener) {
        var at = opener.getBoundingClientRect();
        if (at.bottom < 0 || at.top > window.innerHeight) {
          hide(false);
        }
      }
    }, { passive: true });
  }

  window.evidencepress = { href: href, markScrollable: markScrollable };
  followSections();
  addValueNotes();
  addCopyButtons();
  markAll();
  var pending = 0;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(markAll, 150);
  });
  document.addEventListener("toggle", markAll, true);  // a table inside <details> has no width until opened
  if (!fromDisk) {
    return;
  }
  document.querySelectorAll("a[href]").forEach(function (link) {
    link.setAttribute("href", href(link.getAttribute("href")));
  });
  document.querySelectorAll("form[action]").forEach(function (form) {
    form.setAttribute("action", href(form.getAttribute("action")));
  });
})();
