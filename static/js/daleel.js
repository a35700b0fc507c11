// Daleel's only script: accessibility glue for htmx swaps. The site works without it.
(function () {
  "use strict";

  function announce(area) {
    var step = area.querySelector("[data-announce]");
    var announcer = document.getElementById("announcer");
    if (step && announcer) {
      // Clear first so that the same words (e.g. two "Correct." in a row) are spoken again.
      announcer.textContent = "";
      window.setTimeout(function () {
        announcer.textContent = step.getAttribute("data-announce");
      }, 50);
    }
  }

  function focusNewStep(area) {
    var target = area.querySelector("[data-autofocus]");
    if (target) {
      target.focus({ preventScroll: true });
      target.scrollIntoView({ block: "nearest" });
    }
  }

  // The language switch returns to the URL the page was rendered at; once htmx has pushed a
  // step's URL, that must be the step, not the quiz page the learner started from.
  function followLocation() {
    var next = document.querySelector(".language-switch input[name=next]");
    if (next) next.value = window.location.pathname + window.location.search;
  }
  document.addEventListener("htmx:after:history:push", followLocation);
  document.addEventListener("htmx:after:history:replace", followLocation);

  // A form that comes back with errors: start the reader at the summary of what to fix.
  document.addEventListener("DOMContentLoaded", function () {
    var summary = document.querySelector(".error-summary[data-autofocus]");
    if (summary) summary.focus();
  });

  // After the catalog's results change (typing, a filter, the pager): say how many match.
  document.addEventListener("htmx:after:settle", function (event) {
    var results = document.getElementById("results");
    var announcer = document.getElementById("results-announcer");
    var count = results && results.querySelector("[data-results-count]");
    if (!announcer || !count) return;
    if (event.target === results || results.contains(event.target)) {
      announcer.textContent = count.textContent.replace(/\s+/g, " ").trim();
    }
  });

  document.addEventListener("htmx:after:settle", function (event) {
    var area = document.getElementById("quiz-area");
    if (!area) return;
    var target = event.target;
    if (target === area || area.contains(target)) {
      focusNewStep(area);
      announce(area);
    }
  });
})();
