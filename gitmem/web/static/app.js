// gitmem: small progressive enhancements. Every page works without this file.
"use strict";
document.addEventListener("submit", function (event) {
  // Forms marked data-confirm ask first (the server still needs the CSRF proof).
  var form = event.target;
  var question = form.getAttribute && form.getAttribute("data-confirm");
  if (!question) {
    return;
  }
  if (!window.confirm(question)) {
    event.preventDefault();
    return;
  }
  // asked here: the server need not ask again on its own confirmation page
  var asked = document.createElement("input");
  asked.type = "hidden";
  asked.name = "confirm";
  asked.value = "yes";
  form.appendChild(asked);
}, true);
