// Keyboard shortcuts for stepping through the lesson on a projector.
//
//   ← / →        previous / next step       [data-step="prev"] / [data-step="next"]
//   Home / End   first / last step          [data-step="first"] / [data-step="last"]
//   p            presenter mode on or off   [data-presenter-toggle]
//   ?            the list of these keys     [data-keys-toggle] (presenter mode)
//   − / +        α one step down / up       [data-control="alpha-down"] / [data-control="alpha-up"] (on a slide)
//   m            the other model            [data-control="model"] (on a slide)
//   r            type another review        [data-control="review"] (on a slide; Enter shows it, Escape closes)
//   t            the next theme             [data-control="theme"] (normal, high contrast light, dark)
//   z / Z        zoom in / out              [data-control="zoom-in"] / [data-control="zoom-out"]
//   Escape       (in a field) leave it, so that the keys above work again; else close the list of keys
//
// In presenter mode the deck's bar (.deck-bar) holds the links that go from slide to slide and from page to page;
// its links win over the page's own.
//
// A shortcut clicks the element that the page marks with the attribute, so it does exactly what clicking it
// does (a plain link, or an htmx request). The page is queried when the key is pressed, so content that htmx
// swapped in is found too. Nothing happens while the focus is in a field (typing a review must not change
// the step), when a modifier is held (Alt+← is the browser's Back), or when the element says
// aria-disabled="true". Loaded with `defer`; no inline code, so it runs under CSP script-src 'self'.
//
// At the end: a student's page that follows the lecturer of a class in the room.
(function () {
  "use strict";

  // Tells the stylesheet that htmx is at work, so the buttons for pages without JavaScript can go.
  document.documentElement.classList.add("js");

  var TARGETS = {
    ArrowLeft: '[data-step="prev"]',
    ArrowRight: '[data-step="next"]',
    Home: '[data-step="first"]',
    End: '[data-step="last"]',
    p: "[data-presenter-toggle]"
  };

  // Inputs where keys do not edit a value or move a selection; every other input is a field.
  var BUTTON_INPUTS = /^(button|submit|reset|checkbox|image)$/;

  function isField(element) {
    if (!(element instanceof Element)) return false;
    if (element.isContentEditable) return true;
    var field = element.closest("input, textarea, select");
    return field !== null && !(field.tagName === "INPUT" && BUTTON_INPUTS.test(field.type));
  }

  // A cell of the parameters table, opened, loads its formula with the counts filled in: the link in the word's
  // row header opens every class's formula (which works without JavaScript), and the cell asks for its own class.
  // "toggle" does not bubble, so it is caught on the way down.
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.open || !window.htmx) return;
    var cell = details.closest("table.params td");
    if (!cell || details.querySelector(".cell-formula")) return;
    var row = cell.parentElement;
    var link = row.querySelector("th a");
    var header = cell.closest("table").querySelectorAll("thead th")[cell.cellIndex];
    if (!link || !header || !header.hasAttribute("data-class")) return;
    var target = document.createElement("div");
    target.className = "cell-formula";
    target.setAttribute("aria-live", "polite");
    details.appendChild(target);
    var url = link.getAttribute("href") + "&class=" + encodeURIComponent(header.getAttribute("data-class"));
    htmx.ajax("GET", url, { target: target, swap: "outerHTML" });
  }, true);

  // The list of keys of the presenter mode: shown and hidden by its button, by ? and (hidden) by Escape.
  function showKeys(show) {
    var list = document.getElementById("deck-keys");
    var button = document.querySelector("[data-keys-toggle]");
    if (!list || !button) return false;
    list.hidden = !show;
    button.setAttribute("aria-expanded", show ? "true" : "false");
    return true;
  }

  // The slide's review field: shown by its button or r, focused; Escape (in the field) hides it again.
  function showReview(show) {
    var form = document.getElementById("slide-review");
    var button = document.querySelector('[data-control="review"]');
    if (!form || !button) return false;
    form.hidden = !show;
    button.setAttribute("aria-expanded", show ? "true" : "false");
    if (show) {
      var field = form.querySelector("input[name=text]");
      field.focus();
      field.select();
    }
    return true;
  }

  document.addEventListener("click", function (event) {
    var review = event.target instanceof Element && event.target.closest('[data-control="review"]');
    if (review) {
      var form = document.getElementById("slide-review");
      showReview(form !== null && form.hidden);
      return;
    }
    var button = event.target instanceof Element && event.target.closest("[data-keys-toggle]");
    if (!button) return;
    var list = document.getElementById("deck-keys");
    showKeys(list !== null && list.hidden);
  });

  // A slide at 125 % or 150 % (zoom-125, zoom-150 on the body; presenter.css zooms <main>): enlarged as far as the
  // chosen zoom, and less where the slide would not fit 1024 × 768 at it, so that zoom never makes a slide scroll. The
  // zoom in use is written on <main> (data-zoom-in-use) for the tests and the curious.
  var ZOOM_STEP = 0.05;
  function fitSlide() {
    var body = document.body, main = document.querySelector("main");
    if (!main || !body.classList.contains("slide")) return;
    var chosen = body.classList.contains("zoom-150") ? 1.5 : body.classList.contains("zoom-125") ? 1.25 : 1;
    main.style.zoom = "";
    var zoom = chosen, page = document.scrollingElement;
    var overflows = function () { return page.scrollHeight > window.innerHeight || page.scrollWidth > window.innerWidth; };
    while (zoom > 1 && overflows()) {
      zoom = Math.max(1, Math.round((zoom - ZOOM_STEP) * 100) / 100);
      main.style.zoom = String(zoom);
    }
    main.setAttribute("data-zoom-in-use", String(zoom));
  }
  fitSlide();
  window.addEventListener("resize", fitSlide);
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(fitSlide);
  document.body.addEventListener("htmx:afterSettle", fitSlide);

  // A chart as a PNG picture: its SVG file (the "Download SVG" link's) drawn on a canvas at twice its size, so that
  // it stays sharp on a slide or in a document, and saved under the SVG file's name.
  var PNG_SCALE = 2;
  function downloadPng(button) {
    var address = button.getAttribute("data-png-of"), name = "chart.png";
    fetch(address, {credentials: "same-origin"}).then(function (response) {
      if (!response.ok) throw new Error("no chart");
      var saved = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
      if (saved) name = saved[1].replace(/\.svg$/, ".png");
      return response.text();
    }).then(function (text) {
      var svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
      var box = (svg.getAttribute("viewBox") || "").split(/[\s,]+/).map(Number);
      var width = parseFloat(svg.getAttribute("width")) || box[2] || 800;
      var height = parseFloat(svg.getAttribute("height")) || box[3] || 600;
      svg.setAttribute("width", width);
      svg.setAttribute("height", height);
      var picture = new Image();
      picture.onload = function () {
        var canvas = document.createElement("canvas");
        canvas.width = Math.round(width * PNG_SCALE);
        canvas.height = Math.round(height * PNG_SCALE);
        var context = canvas.getContext("2d");
        context.fillStyle = "#fff"; // a picture pasted anywhere keeps the chart's white paper
        context.fillRect(0, 0, canvas.width, canvas.height);
        context.drawImage(picture, 0, 0, canvas.width, canvas.height);
        canvas.toBlob(function (blob) {
          var link = document.createElement("a");
          link.href = URL.createObjectURL(blob);
          link.download = name;
          document.body.appendChild(link);
          link.click();
          link.remove();
          window.setTimeout(function () { URL.revokeObjectURL(link.href); }, 0);
        }, "image/png");
      };
      picture.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(svg));
    }).catch(function () { button.disabled = true; });
  }
  Array.prototype.forEach.call(document.querySelectorAll("[data-png-of]"), function (button) { button.hidden = false; });
  document.body.addEventListener("htmx:afterSettle", function () {
    Array.prototype.forEach.call(document.querySelectorAll("[data-png-of][hidden]"), function (b) { b.hidden = false; });
  });
  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element && event.target.closest("[data-png-of]");
    if (button) downloadPng(button);
  });

  // The slide's review form (r, then Enter) sends every setting of the lesson as a field, which would leave the long
  // address in the bar; with the script, the slide's own short address with the new review is opened instead.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || form.id !== "slide-review" || event.defaultPrevented) return;
    var address = new URL(window.location.href);
    address.searchParams.set("text", form.querySelector("input[name=text]").value);
    event.preventDefault();
    window.location.assign(address.pathname + address.search);
  });

  // "Present" (and p) on a page outside the deck: the page as slides, with what is on screen now. htmx redraws
  // parts of a page and pushes their address (α changed, the next step), so the link drawn with the page may be
  // older than the address: it opens the address with presenter=1 instead (and without another page's slide=,
  // data-first-slide, so that the deck starts at this page's first slide).
  document.body.addEventListener("click", function (event) {
    var link = event.target instanceof Element && event.target.closest("a.present-link");
    if (!link || event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey ||
        event.altKey) return;
    var address = new URL(window.location.href);
    if (address.pathname !== new URL(link.href).pathname) return; // the page was not redrawn as another one
    address.searchParams.set("presenter", "1");
    if (link.hasAttribute("data-first-slide")) address.searchParams.delete("slide");
    event.preventDefault();
    window.location.assign(address.pathname + address.search);
  });

  // The keys that move a page by themselves: the arrows, Home and End, α's − and +, the model and the review.
  var MOVING_KEYS = {ArrowLeft: 1, ArrowRight: 1, Home: 1, End: 1, "+": 1, "=": 1, "-": 1, "−": 1, m: 1, r: 1, M: 1,
                     R: 1};

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    // Following the lecturer: the lecturer moves this page, so these keys do nothing (the class bar's "Explore on my
    // own" leaves following first); p, t, z, ? and Esc still change how the page looks.
    if (MOVING_KEYS[event.key] && !isField(event.target) &&
        document.querySelector(".class-bar[data-following]")) return;
    if (event.key === "?" && !event.altKey && !event.ctrlKey && !event.metaKey && !isField(event.target)) {
      var list = document.getElementById("deck-keys");
      if (list && showKeys(list.hidden)) event.preventDefault();
      return;
    }
    // + and − (Shift is how many keyboards type +): α one step, on a slide.
    var controls = {"+": "alpha-up", "=": "alpha-up", "-": "alpha-down", "−": "alpha-down"};
    if (controls[event.key] && !event.altKey && !event.ctrlKey && !event.metaKey && !isField(event.target)) {
      var control = document.querySelector('[data-control="' + controls[event.key] + '"]');
      if (control) {
        event.preventDefault();
        control.click();
      }
      return;
    }
    if (event.key === "Z" && event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey && !isField(event.target)) {
      var zoomOut = document.querySelector('[data-control="zoom-out"]');
      if (zoomOut) {
        event.preventDefault();
        zoomOut.click();
      }
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key; // "P" with Caps Lock is still p
    if (key === "Escape" && isField(event.target) && event.target.closest("#slide-review")) {
      showReview(false);
      return;
    }
    if (key === "Escape" && isField(event.target)) {
      event.target.blur(); // done typing: hand the arrow keys back to the steps
      return;
    }
    if (key === "Escape") {
      // A full table opened over a slide closes, and its summary keeps the focus for Enter to open it again.
      Array.prototype.forEach.call(document.querySelectorAll("body.slide details.full-table[open]"), function (open) {
        open.open = false;
        var summary = open.querySelector("summary");
        if (summary) summary.focus();
      });
      showKeys(false);
      return;
    }
    // In a table's scroll box the arrows scroll the table, not the lesson's steps.
    if ((key === "ArrowLeft" || key === "ArrowRight") && event.target instanceof Element &&
        event.target.closest('[role="region"][tabindex]')) return;
    var slideKeys = {m: "model", r: "review", t: "theme", z: "zoom-in"};
    if (slideKeys[key] && !isField(event.target)) {
      var slideControl = document.querySelector('[data-control="' + slideKeys[key] + '"]');
      if (slideControl) {
        event.preventDefault();
        slideControl.click();
        return;
      }
    }
    var selector = TARGETS[key];
    if (!selector || isField(event.target)) return;
    if (key === "p" && event.repeat) return; // holding p must not flip presenter mode back and forth
    var target = document.querySelector(".deck-bar " + selector) || document.querySelector(selector);
    if (!target || target.getAttribute("aria-disabled") === "true") return;
    event.preventDefault(); // Home/End and the arrows would otherwise also scroll the page
    target.click();
  });

  // A folded line of settings (details[data-fold]: the model, the steps) that the user opened stays open when
  // htmx redraws the part of the page it is in, as changing α in it does. Known by its data-fold name.
  var openFolds = [];
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    openFolds = target instanceof Element ? Array.prototype.map.call(
      target.querySelectorAll("details[data-fold][open]"), function (fold) { return fold.getAttribute("data-fold"); })
      : [];
  });
  document.body.addEventListener("htmx:afterSwap", function () {
    openFolds.forEach(function (name) {
      var fold = document.querySelector('details[data-fold="' + name + '"]');
      if (fold) fold.open = true;
    });
    openFolds = [];
  });

  // The address pushed into the history after a form was sent through htmx: the server's short one
  // (X-Webnb-Address: only what differs from the corpus's defaults), not every field of the form.
  document.body.addEventListener("htmx:beforeHistoryUpdate", function (event) {
    var xhr = event.detail.xhr;
    var short = xhr && xhr.getResponseHeader("X-Webnb-Address");
    if (short && short.charAt(0) === "/") event.detail.history.path = short;
  });

  // A refusal (429 too many requests, 403, 404, …) of an htmx request: htmx swaps nothing for an error, so the
  // server's message (X-Webnb-Refusal, escaped HTML of webnb's own) goes above the part of the page that asked,
  // which keeps what it showed. After a 429 a GET is asked again once, when Retry-After says it may be.
  document.body.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr, target = event.detail.target;
    if (!xhr || !xhr.getResponseHeader("X-Webnb-Refusal") || !(target instanceof Element)) return;
    var template = document.createElement("template");
    template.innerHTML = xhr.responseText;
    var note = template.content.querySelector(".refusal-note");
    if (!note) return;
    var old = target.querySelector(":scope > .refusal-note");
    if (old) old.remove();
    target.insertBefore(note, target.firstChild);
    var wait = parseInt(xhr.getResponseHeader("Retry-After") || "", 10);
    var info = event.detail.requestConfig;
    if (xhr.status === 429 && wait > 0 && info && info.verb === "get" && event.detail.pathInfo) {
      window.setTimeout(function () {
        if (!note.isConnected) return; // something else was shown since
        // The same element asks again (a form sends its fields as they are now), with its own hx-swap.
        htmx.ajax("GET", event.detail.pathInfo.requestPath, {source: event.detail.elt, target: target});
      }, wait * 1000);
    }
  });

  // A student following the lecturer (.class-bar[data-follow-url], webnb/room/following.py): the class's event stream
  // (sse-connect on the bar, htmx's SSE extension, webnb/room) says each move of the lecturer, with the class's state
  // version and address, and the lecturer's page is opened when the version changed. Each stream starts with the
  // class's present state, so a page that (re)connects catches up at once. While the stream is not open (not yet,
  // dropped, blocked by a proxy) the page asks follow.json about once a second instead, and stops asking when the
  // stream opens again. Each page starts polling at its own moment, so that a room's requests spread over the second.
  var FOLLOW_EVERY_MS = 1000;
  // How long a page waits for its stream before it polls: a stream that neither opens nor fails (a proxy holding
  // it back) must not leave the page behind the lecturer.
  var STREAM_WAIT_MS = 5000;
  var bar = document.querySelector(".class-bar[data-follow-url]");
  if (bar && window.fetch) {
    var shown = bar.getAttribute("data-follow-version");
    // A page this script opened to follow the lecturer was asked for at the version it followed, but may be drawn
    // after a later move, with the newer version: it would then never follow that move. Start from the version
    // followed, so that the stream's first event (or the first poll) opens the lecturer's page.
    var OPENED_AT = "webnb-followed-version";
    try {
      var opened = window.sessionStorage.getItem(OPENED_AT);
      window.sessionStorage.removeItem(OPENED_AT);
      if (opened !== null && Number(opened) < Number(shown)) shown = opened;
    } catch (error) { /* no session storage: the page starts from the version it shows */ }
    var done = false, streamOpen = false, polling = false;
    var stopFollowing = function () {
      done = true;
      var source = bar["webnb-stream"];
      if (source) source.close();
      bar.removeAttribute("data-stream");
    };
    var following = bar.hasAttribute("data-following");
    // The class has ended: said in the bar at once, on a following page and an exploring one alike; the page stays.
    var showEnded = function () {
      var ended = bar.querySelector(".class-ended");
      if (!ended) return;
      ended.hidden = false;
      Array.prototype.forEach.call(bar.querySelectorAll(".class-status, form"), function (part) { part.hidden = true; });
      bar.removeAttribute("data-following");
      bar.classList.add("class-bar-ended");
      // The deck's bar drawn for a follower has no arrows: it offers the same slide with them.
      Array.prototype.forEach.call(document.querySelectorAll(".deck-following"), function (note) { note.hidden = true; });
      Array.prototype.forEach.call(document.querySelectorAll(".deck-unfollowed"), function (link) { link.hidden = false; });
    };
    // The class's state, from the stream or a poll: true while the page stays and listens.
    var follow = function (state) {
      if (done) return false;
      if (!state || !state.running) { // ended, or this browser left it
        stopFollowing();
        if (state && state.running === false) showEnded();
        return false;
      }
      if (!following) return true; // exploring: only the end of the class is heard
      if (String(state.version) !== shown) {
        shown = String(state.version);
        if (state.address !== location.pathname + location.search) {
          try { window.sessionStorage.setItem(OPENED_AT, shown); } catch (error) { /* see above */ }
          stopFollowing();
          location.assign(state.address);
          return false;
        }
      }
      return true;
    };
    var poll = function () {
      if (done || streamOpen) { polling = false; return; }
      fetch(bar.getAttribute("data-follow-url"), {credentials: "same-origin", headers: {Accept: "application/json"}})
        .then(function (response) {
          if (response.status === 429 || response.status >= 500) {
            // Past this member's budget of polls, or the server cannot answer now (its database, say): ask again
            // when it says, never stop following for it. Only a 404 (not this class's member any more) stops.
            var wait = parseInt(response.headers.get("Retry-After") || "", 10);
            window.setTimeout(poll, (wait > 0 ? Math.min(wait, 30) : 5) * 1000);
            return null;
          }
          return (response.ok ? response.json() : Promise.resolve(null)).then(function (state) {
            if (follow(state)) window.setTimeout(poll, FOLLOW_EVERY_MS); else polling = false;
          });
        })
        .catch(function () { window.setTimeout(poll, FOLLOW_EVERY_MS * 2); });
    };
    var startPolling = function (after) {
      if (polling || done) return;
      polling = true;
      window.setTimeout(poll, after);
    };
    var onMove = function (event) {
      var state;
      try { state = JSON.parse(event.data); } catch (error) { return; }
      follow(state);
    };
    bar.addEventListener("htmx:sseOpen", function (event) {
      var source = event.detail.source;
      bar["webnb-stream"] = source;
      if (done) { source.close(); return; }
      streamOpen = true;
      bar.setAttribute("data-stream", "open");
      source.addEventListener("move", onMove); // the same listener once per source, however often it reopens
    });
    bar.addEventListener("htmx:sseError", function (event) {
      var source = event.detail.source;
      if (source && source.readyState === EventSource.OPEN) return;
      streamOpen = false;
      bar.removeAttribute("data-stream");
      startPolling(Math.random() * FOLLOW_EVERY_MS);
    });
    var hasStream = bar.hasAttribute("sse-connect") && window.EventSource && window.htmx && htmx.createEventSource;
    startPolling(hasStream ? STREAM_WAIT_MS : Math.random() * FOLLOW_EVERY_MS);
  }
})();
