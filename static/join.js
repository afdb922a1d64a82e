// The join form's proof of work (webnb/room/proof.py), asked only while the student's network has sent many wrong
// codes: find a nonce such that SHA-256("<challenge>:<nonce>") starts with the number of zero bits asked, then send
// the form. Loaded only on that page; no inline code (CSP script-src 'self').
(function () {
  "use strict";
  var form = document.querySelector("form[data-proof]");
  if (!form || !window.crypto || !window.crypto.subtle) { return; }
  var challenge = form.getAttribute("data-proof");
  var bits = parseInt(form.getAttribute("data-proof-bits"), 10);
  var status = form.querySelector(".join-proof-status");
  var encoder = new TextEncoder();
  var BATCH = 512;  // digests asked for at once: one at a time, the promises cost more than the hashing

  var zeroBits = function (buffer) {
    var bytes = new Uint8Array(buffer);
    var count = 0;
    for (var i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0) { count += 8; continue; }
      return count + Math.clz32(bytes[i]) - 24;
    }
    return count;
  };

  var search = function (from) {
    var digests = [];
    for (var n = from; n < from + BATCH; n++) {
      digests.push(window.crypto.subtle.digest("SHA-256", encoder.encode(challenge + ":" + n)));
    }
    return Promise.all(digests).then(function (results) {
      for (var i = 0; i < results.length; i++) {
        if (zeroBits(results[i]) >= bits) { return from + i; }
      }
      return search(from + BATCH);
    });
  };

  var solved = null;
  var wanted = form.querySelector("#class-code").value.trim() !== "";  // a code came with the page: send it when done
  var fill = function () { form.querySelector('input[name="nonce"]').value = String(solved); };
  if (status) { status.textContent = "Working… (about a second)"; }
  search(0).then(function (nonce) {
    solved = nonce;
    fill();
    if (status) { status.textContent = wanted ? "Done; checking the code…" : "Ready: press Join."; }
    if (wanted) { form.submit(); }
  });
  form.addEventListener("submit", function (event) {
    if (solved === null) {
      event.preventDefault();
      wanted = true;
      if (status) { status.textContent = "Still working… the code is sent when it is done."; }
      return;
    }
    fill();
  });
})();
