// Payrail hosted payment page: countdown, copy buttons, currency choice, cancel, and live status by polling.
// Plain browser JavaScript, no dependencies; the page is fully usable (if not live) without it.
(function () {
  'use strict';

  var root = document.getElementById('pay');
  if (!root || !root.dataset.stateUrl) return;

  var POLL_MS = 2000;
  var REDIRECT_MS = 2000;
  var TERMINAL = ['paid', 'expired', 'canceled', 'invalid', 'refunded'];

  var view = root.dataset.view;
  var expiresAt = Date.parse(root.dataset.expiresAt || '');
  var statusText = document.getElementById('status');
  var statusBox = statusText && statusText.parentElement;
  var countdown = document.getElementById('countdown');
  var timer = document.getElementById('timer');
  var announcer = document.getElementById('announcer');
  var redirecting = false;

  function announce(text) {
    if (!announcer) return;
    announcer.textContent = '';
    window.setTimeout(function () { announcer.textContent = text; }, 50);
  }

  function postJson(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body || {}),
      credentials: 'same-origin',
    }).then(function (res) {
      return res.json().then(function (json) {
        if (!res.ok) throw new Error((json && json.message) || 'Something went wrong. Please try again.');
        return json;
      });
    });
  }

  // Countdown to expiry.
  function pad(n) { return n < 10 ? '0' + n : String(n); }
  function tick() {
    if (!countdown || isNaN(expiresAt)) return;
    var left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    var h = Math.floor(left / 3600);
    var m = Math.floor((left % 3600) / 60);
    var s = left % 60;
    countdown.textContent = (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(s);
    if (timer) timer.classList.toggle('urgent', left < 120);
  }
  if (countdown && TERMINAL.indexOf(view) === -1) {
    tick();
    window.setInterval(tick, 1000);
  }

  // Copy buttons.
  Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
    button.addEventListener('click', function () {
      var value = button.getAttribute('data-copy') || '';
      // The accessible name keeps the visible text in it ("Copied …" while it says Copied).
      var label = button.getAttribute('aria-label') || 'Copy';
      var done = function () {
        button.classList.add('copied');
        button.textContent = 'Copied';
        button.setAttribute('aria-label', label.replace(/^Copy/, 'Copied'));
        announce('Copied to the clipboard');
        window.setTimeout(function () {
          button.classList.remove('copied');
          button.textContent = 'Copy';
          button.setAttribute('aria-label', label);
        }, 2000);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(value).then(done, function () { fallbackCopy(value); done(); });
      } else {
        fallbackCopy(value);
        done();
      }
    });
  });
  function fallbackCopy(value) {
    var area = document.createElement('textarea');
    area.value = value;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.appendChild(area);
    area.select();
    try { document.execCommand('copy'); } catch (e) { /* the value stays visible to copy by hand */ }
    document.body.removeChild(area);
  }

  // Currency choice: the server creates the payment, then the page shows where to send it.
  var chooseError = document.getElementById('choose-error');
  var currencyButtons = document.querySelectorAll('button[data-currency]');
  Array.prototype.forEach.call(currencyButtons, function (button) {
    button.addEventListener('click', function () {
      Array.prototype.forEach.call(currencyButtons, function (b) { b.disabled = true; });
      button.setAttribute('aria-busy', 'true');
      if (chooseError) chooseError.hidden = true;
      announce('Preparing your payment…');
      postJson(root.dataset.chooseUrl, { pay_currency: button.getAttribute('data-currency') }).then(
        function () { window.location.reload(); },
        function (err) {
          Array.prototype.forEach.call(currencyButtons, function (b) { b.disabled = false; });
          button.removeAttribute('aria-busy');
          if (chooseError) {
            chooseError.textContent = err.message;
            chooseError.hidden = false;
          }
        },
      );
    });
  });

  // Cancel.
  var cancelButton = document.getElementById('cancel');
  if (cancelButton) {
    cancelButton.addEventListener('click', function () {
      cancelButton.disabled = true;
      postJson(root.dataset.cancelEndpoint).then(
        function (state) {
          if (state.cancel_url) window.location.assign(state.cancel_url);
          else apply(state);
        },
        function (err) {
          cancelButton.disabled = false;
          announce(err.message);
        },
      );
    });
  }

  // Live status.
  function apply(state) {
    if (statusText && statusText.textContent !== state.status_text) statusText.textContent = state.status_text;
    if (statusBox) statusBox.setAttribute('data-status', state.status);
    if (view === 'pay' && state.view === 'pay' && state.payment && root.dataset.leftToPay && state.payment.left_to_pay !== root.dataset.leftToPay) {
      // A payin arrived short (or the rest did): the amount, its copy button and the QR code ask for what is left now.
      window.location.reload();
      return;
    }
    if (state.view === view) return;
    if (view === 'choose' && state.view === 'pay') {
      // The payment was created elsewhere (another tab, or a fixed currency): show its details.
      window.location.reload();
      return;
    }
    view = state.view;
    root.dataset.view = view;
    if (TERMINAL.indexOf(view) !== -1) showOutcome(state);
  }

  function showOutcome(state) {
    var section = document.getElementById('outcome');
    var title = document.getElementById('outcome-title');
    var message = document.getElementById('outcome-message');
    var link = document.getElementById('outcome-link');
    var redirect = document.getElementById('outcome-redirect');
    if (timer) timer.hidden = true;
    if (cancelButton) cancelButton.hidden = true;
    if (!section || !title || !message) return;
    title.textContent = state.headline;
    message.textContent = state.message;
    section.hidden = false;
    var back = view === 'paid' ? state.success_url : state.cancel_url;
    if (link && back) {
      link.href = back;
      link.hidden = false;
    }
    title.focus();
    if (view === 'paid' && state.success_url && !redirecting) {
      redirecting = true;
      if (redirect) redirect.hidden = false;
      window.setTimeout(function () { window.location.assign(state.success_url); }, REDIRECT_MS);
    }
  }

  function poll() {
    fetch(root.dataset.stateUrl, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (state) { if (state) apply(state); })
      .catch(function () { /* offline for a moment: try again */ })
      .then(function () { if (TERMINAL.indexOf(view) === -1) window.setTimeout(poll, POLL_MS); });
  }

  // A page rendered as paid (reloaded after payment) still takes the customer back to the shop.
  if (view === 'paid' && root.dataset.successUrl) {
    redirecting = true;
    window.setTimeout(function () { window.location.assign(root.dataset.successUrl); }, REDIRECT_MS);
  }
  if (TERMINAL.indexOf(view) === -1) window.setTimeout(poll, POLL_MS);
})();
