// Payrail refund claim page: sends the customer's address as JSON and shows the answer (or the refusal's message).
// Plain browser JavaScript, no dependencies.
(function () {
  'use strict';

  var root = document.getElementById('claim');
  var form = document.getElementById('claim-form');
  if (!root || !form) return;

  var input = document.getElementById('refund-address');
  var submit = document.getElementById('claim-submit');
  var error = document.getElementById('claim-error');
  var status = document.getElementById('status');
  var outcome = document.getElementById('outcome');
  var given = document.getElementById('refund-address-given');

  function refuse(text) {
    error.textContent = text;
    error.hidden = false;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var address = input.value.trim();
    if (!address) return refuse('Enter your address.');
    error.hidden = true;
    input.removeAttribute('aria-invalid');
    submit.disabled = true;
    submit.setAttribute('aria-busy', 'true');
    fetch(root.dataset.claimUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ address: address }),
      credentials: 'same-origin',
    })
      .then(function (res) {
        return res.json().then(function (json) {
          if (!res.ok) {
            var detail = json && json.details && json.details[0];
            throw new Error(detail ? detail.path + ' ' + detail.message : (json && json.message) || 'Something went wrong. Please try again.');
          }
          return json;
        });
      })
      .then(function (claim) {
        form.hidden = true;
        status.textContent = 'Being sent';
        status.parentElement.dataset.status = 'paid';
        given.textContent = claim.address;
        outcome.hidden = false;
        document.getElementById('outcome-title').focus();
      })
      .catch(function (err) {
        refuse(err.message);
      })
      .finally(function () {
        submit.disabled = false;
        submit.removeAttribute('aria-busy');
      });
  });
})();
