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
document.addEventListener("submit", function (event) {
  // The rename form goes to the JSON API (/api/mv, as `git mem mv --json`), then to the page under
  // its new name; without this script it posts to /rename/PATH, which does the same.
  var form = event.target;
  if (!form.getAttribute || form.getAttribute("data-api") !== "/api/mv") {
    return;
  }
  event.preventDefault();
  var links = form.querySelector("input[name=links]");
  var shown = form.querySelector(".error");
  var body = {old: form.getAttribute("data-old"), new: form.querySelector("input[name=new]").value,
              no_links: links ? !links.checked : false};
  fetch("/api/mv", {method: "POST", headers: {"Content-Type": "application/json", "X-Gitmem": "1"},
                    body: JSON.stringify(body), credentials: "same-origin"})
    .then(function (response) {
      return response.json().then(function (data) { return {ok: response.ok, data: data}; });
    })
    .then(function (answer) {
      if (answer.ok) {
        window.location.assign("/page/" + encodeURI(answer.data["new"]) + "?flash=" +
                               encodeURIComponent("renamed from " + answer.data.old));
        return;
      }
      shown.textContent = "error: " + answer.data.error + (answer.data.hint ? " (" + answer.data.hint + ")" : "");
      shown.hidden = false;
    })
    .catch(function (error) {
      shown.textContent = "error: " + error;
      shown.hidden = false;
    });
});
