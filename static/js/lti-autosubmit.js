// Sends the deep-linking response back to the platform at once (the page's button does the
// same without JavaScript). A static file: the CSP allows no inline script.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form[data-lti-autosubmit]");
    if (form) {
      form.submit();
    }
  });
})();
