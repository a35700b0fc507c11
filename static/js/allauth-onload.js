// allauth's account/js/onload.js for a page with no inline <script> (the CSP and our tests
// allow none, not even JSON data blocks): each element with data-allauth-onload names one of
// allauth's functions (allauth.webauthn.forms.loginForm, …) and holds its argument as JSON in
// data-allauth-args. Data a function reads by id (ids.data) is the JSON text of a hidden element.
(function () {
  document.addEventListener('DOMContentLoaded', function () {
    document.querySelectorAll('[data-allauth-onload]').forEach(function (element) {
      if (element.tagName === 'SCRIPT') return // allauth's own onload.js runs those
      const name = element.dataset.allauthOnload
      if (typeof name !== 'string' || !name.startsWith('allauth.')) return
      const func = name.split('.').reduce(function (found, part) { return found && found[part] }, window)
      if (typeof func === 'function') func(JSON.parse(element.dataset.allauthArgs || '{}'))
    })
  })
})()
