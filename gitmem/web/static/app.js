// gitmem: small progressive enhancements. Every page works without this file.
"use strict";
document.addEventListener("submit", function (event) {
  // Forms marked data-confirm ask first (the server still needs the CSRF proof).
  var form = event.target;
  var question = form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
}, true);
