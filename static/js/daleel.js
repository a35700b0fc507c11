// Daleel's only script: accessibility glue for htmx swaps, the review's keys 1–4 and the
// browser's time zone for sign-up. The site works without it.
(function () {
  "use strict";

  // What only works with this script (the review's keys) says so only with it: see .key-hint.
  document.documentElement.classList.add("has-script");

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

  // The time left of a timed attempt, counted down from the server's deadline. The page
  // already says it as text; this keeps it current, and speaks only at 5 and 1 minutes left
  // (a screen reader told every second would hear nothing else).
  var timerInterval = null;
  var timeUp = null;
  function pad(number) {
    return (number < 10 ? "0" : "") + number;
  }
  function startTimer() {
    if (timerInterval) window.clearInterval(timerInterval);
    if (timeUp) window.clearTimeout(timeUp);
    var timer = document.querySelector(".timer[data-deadline]");
    if (!timer) return;
    // The deadline on this device's clock, which may be minutes off the server's: shifted
    // by the difference between the two when the step was rendered.
    var skew = Date.parse(timer.getAttribute("data-now")) - Date.now();
    var deadline = Date.parse(timer.getAttribute("data-deadline")) - (skew || 0);
    var value = timer.querySelector(".timer__value");
    var spoken = {};
    function render() {
      var seconds = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      var hours = Math.floor(seconds / 3600);
      var minutes = Math.floor((seconds % 3600) / 60);
      var rest = seconds % 60;
      // h:mm:ss from an hour up (a quiz that closes in days has no "4320:00" left), else m:ss.
      value.textContent = (hours ? hours + ":" + pad(minutes) : minutes) + ":" + pad(rest);
      timer.classList.toggle("timer--low", seconds <= 60);
      [5, 1].forEach(function (mark) {
        if (seconds <= mark * 60 && seconds > 0 && !spoken[mark]) {
          spoken[mark] = true;
          var announcer = document.getElementById("announcer");
          var words = timer.getAttribute("data-say-" + mark);
          if (announcer && words) announcer.textContent = words;
        }
      });
      if (seconds === 0) over();
    }
    // At 0:00 the learner hears that time is up; once the server's grace for answers on
    // their way has passed too, the attempt's own address shows its result (the server
    // finishes it on that request).
    function over() {
      window.clearInterval(timerInterval);
      var announcer = document.getElementById("announcer");
      var words = timer.getAttribute("data-say-0");
      if (announcer && words && !spoken[0]) announcer.textContent = words;
      spoken[0] = true;
      var grace = 1000 * (parseInt(timer.getAttribute("data-grace"), 10) || 0);
      var wait = Math.max(0, deadline + grace + 1000 - Date.now());
      timeUp = window.setTimeout(function () {
        window.location.assign(timer.getAttribute("data-over"));
      }, wait);
    }
    // Marks already passed when the page loads are not spoken again.
    var left = (deadline - Date.now()) / 60000;
    [5, 1].forEach(function (mark) { if (left <= mark) spoken[mark] = true; });
    render();
    timerInterval = window.setInterval(render, 1000);
  }
  document.addEventListener("DOMContentLoaded", startTimer);

  document.addEventListener("htmx:after:settle", function (event) {
    var area = document.getElementById("quiz-area");
    if (!area) return;
    var target = event.target;
    if (target === area) {
      focusNewStep(area);
      announce(area);
      startTimer();
    } else if (area.contains(target)) {
      // A smaller swap inside the step (the report form): focus what it brought.
      focusNewStep(target);
    }
  });

  // An ordering question: each item gets Move up and Move down buttons, which move it in the
  // list and set every item's position select to its place; the selects alone work without
  // this (and say the same to the server). Focus stays on the button pressed.
  function enhanceOrderLists(root) {
    (root || document).querySelectorAll("[data-order-list]").forEach(function (list) {
      if (list.dataset.enhanced) return;
      list.dataset.enhanced = "1";
      var items = function () { return Array.prototype.slice.call(list.querySelectorAll("[data-order-item]")); };
      function renumber() {
        items().forEach(function (item, index) {
          var select = item.querySelector("select");
          if (select) select.value = String(index + 1);
        });
      }
      // "2 of 5", in the page's language (the list's data-place: {place} and {count}).
      function say(item) {
        var announcer = document.getElementById("announcer");
        var label = item.querySelector("label");
        if (announcer && label) {
          var place = (list.dataset.place || "{place} / {count}")
            .replace("{place}", String(items().indexOf(item) + 1))
            .replace("{count}", String(items().length));
          announcer.textContent = label.textContent.trim() + ": " + place;
        }
      }
      // The first item's Move up and the last one's Move down can do nothing: said disabled
      // (aria-disabled keeps the button pressed in the focus order, where a disabled one would
      // drop it), and a press only says where the item is.
      function markEnds() {
        var all = items();
        all.forEach(function (item, index) {
          item.querySelectorAll("[data-move]").forEach(function (button) {
            var end = button.dataset.move === "up" ? index === 0 : index === all.length - 1;
            button.setAttribute("aria-disabled", end ? "true" : "false");
          });
        });
      }
      items().forEach(function (item) {
        var label = item.querySelector("label");
        var name = label ? label.textContent.trim() : "";
        var controls = document.createElement("span");
        controls.className = "order-item__moves";
        [["up", list.dataset.moveUp], ["down", list.dataset.moveDown]].forEach(function (pair) {
          var button = document.createElement("button");
          button.type = "button";
          button.className = "button button--small order-item__move";
          button.dataset.move = pair[0];
          button.textContent = pair[1];
          button.setAttribute("aria-label", pair[1] + ": " + name);
          controls.appendChild(button);
        });
        item.appendChild(controls);
      });
      markEnds();
      list.addEventListener("click", function (event) {
        var button = event.target.closest("[data-move]");
        if (!button) return;
        var item = button.closest("[data-order-item]");
        if (button.dataset.move === "up" && item.previousElementSibling) {
          list.insertBefore(item, item.previousElementSibling);
        } else if (button.dataset.move === "down" && item.nextElementSibling) {
          list.insertBefore(item.nextElementSibling, item);
        }
        renumber();
        markEnds();
        button.focus();
        say(item);
      });
      // A select changed by hand: the list follows it, so what is read is what is sent.
      list.addEventListener("change", function (event) {
        var select = event.target;
        if (!select.matches("select")) return;
        var item = select.closest("[data-order-item]");
        var place = parseInt(select.value, 10);
        var others = items().filter(function (other) { return other !== item; });
        if (!place || place > others.length + 1) return;
        list.insertBefore(item, others[place - 1] || null);
        renumber();
        markEnds();
        select.focus();
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { enhanceOrderLists(document); });
  document.addEventListener("htmx:after:settle", function (event) { enhanceOrderLists(event.target); });

  // Self-rating after a review answer, as in Anki: keys 2, 3 and 4 press Hard, Good and Easy
  // after a right answer; after a wrong one (Again, recorded without asking) key 1 goes on to
  // the next question. The buttons and the link work without this.
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    var tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (!/^[1-4]$/.test(event.key)) return;
    var button = document.querySelector('[data-rating-key="' + event.key + '"]');
    if (button && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  });

  // The browser's time zone, for the account a sign-up makes (accounts.signals reads the
  // cookie at the first sign-in; the profile page changes it later).
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && document.cookie.indexOf("tz=" + encodeURIComponent(zone)) === -1) {
      document.cookie =
        "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax" +
        (window.location.protocol === "https:" ? "; secure" : "");
    }
  } catch (error) {
    // No Intl time zones: the profile keeps the site's zone.
  }
})();
