// Pages an LMS opens (webnb/lti): the answer to a course that asked for a lesson goes back to it as soon as the page
// has loaded (the form posts itself: that page's Content-Security-Policy lets its form go to the course's own address
// and nowhere else); a finished registration tells the LMS's window that it may close.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("form[data-autosubmit]").forEach((form) => form.submit());
  if (document.querySelector("[data-lti-close]")) {
    (window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
  }
});

// A launch shown in the LMS's iframe without webnb's cookie (the bar "Open in a new window", base.html): every page
// the student moves to inside the iframe keeps the launch's window ticket in its address, so that the bar, and the
// way to a window of webnb's own, stay on it.
document.addEventListener("DOMContentLoaded", () => {
  const bar = document.querySelector("[data-lti-window]");
  if (!bar) return;
  const ticket = bar.dataset.ltiWindow;
  const keeps = (url) => url.origin === window.location.origin && !url.pathname.startsWith("/lti/");
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    if (!link || link.target === "_blank" || link.hasAttribute("download")) return;
    const url = new URL(link.href, window.location.href);
    if (keeps(url) && !url.searchParams.has("lti_window")) {
      url.searchParams.set("lti_window", ticket);
      link.href = url.toString();
    }
  });
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if ((form.method || "get").toLowerCase() !== "get" || form.querySelector("input[name=lti_window]")) return;
    if (!keeps(new URL(form.action || window.location.href, window.location.href))) return;
    const kept = document.createElement("input");
    kept.type = "hidden";
    kept.name = "lti_window";
    kept.value = ticket;
    form.appendChild(kept);
  });
});
