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
document.addEventListener("DOMContentLoaded", function () {
  // The file tree beside a page starts open where there is room for it (closed on a phone,
  // where it would push the page down).
  if (window.matchMedia("(min-width: 721px)").matches) {
    document.querySelectorAll("details.tree-box").forEach(function (box) { box.open = true; });
  }
});
