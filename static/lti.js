// The answer to a course that asked for a lesson goes back to it as soon as the page has loaded: the form posts
// itself (the Content-Security-Policy of that page lets its form go to the course's own address, and nowhere else).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("form[data-autosubmit]").forEach((form) => form.submit());
});
