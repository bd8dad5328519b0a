import type { ClaimView } from '../../services/refund-claims';
import { esc, layout } from './render';

const STATUS_TEXT: Record<ClaimView['status'], string> = {
  awaiting_address: 'Waiting for your address',
  pending: 'Being sent',
  sent: 'Sent, waiting for confirmations',
  completed: 'Refunded',
  failed: 'Could not be sent: the shop will contact you',
};

/** The outcome's headline (shown once the refund has its address; the script shows it after a claim). */
const OUTCOME_TITLE: Record<ClaimView['status'], string> = {
  awaiting_address: 'Your refund is on its way',
  pending: 'Your refund is on its way',
  sent: 'Your refund is on its way',
  completed: 'Your refund was sent',
  failed: 'Your refund could not be sent',
};

/**
 * The refund claim page (`/pay/{id}/refunds/{refundId}/claim/{token}`), in the hosted payment page's look: the refund's
 * amount, token and network, and while it awaits one, a form for the customer's address on that network. The form is
 * sent as JSON by web/pay/claim.js (to `claimUrl`, the page's own path); without JavaScript the page says so.
 */
export function renderClaimPage(view: ClaimView, claimUrl: string): string {
  const awaiting = view.status === 'awaiting_address';
  const body = `<main id="claim" class="card" data-claim-url="${esc(claimUrl)}" data-status="${esc(view.status)}">
  <header class="summary">
    <p class="merchant">${esc(view.merchant)}</p>
    <h1 id="page-title">Your refund</h1>
    <p class="price"><span class="price-label">Refund</span> <strong id="refund-amount">${esc(view.amount)} ${esc(view.tokenSymbol)}</strong></p>
  </header>
  <div class="status-bar">
    <p class="status" data-status="${awaiting ? 'waiting' : view.status === 'failed' ? 'invalid' : 'paid'}"><span class="status-label">Status:</span> <span id="status" role="status" aria-live="polite">${esc(STATUS_TEXT[view.status])}</span></p>
  </div>
  <section class="pay" aria-labelledby="refund-heading">
    <h2 id="refund-heading">What you receive</h2>
    <div class="field">
      <span class="field-label" id="amount-label">Amount</span>
      <div class="value-row"><span class="value amount" aria-labelledby="amount-label">${esc(view.amount)} ${esc(view.tokenSymbol)}</span></div>
    </div>
    <div class="field">
      <span class="field-label" id="token-label">Token</span>
      <div class="value-row"><span class="value" id="refund-token" aria-labelledby="token-label">${esc(view.tokenSymbol)}</span></div>
    </div>
    <div class="field">
      <span class="field-label" id="network-label">Network</span>
      <div class="value-row"><span class="value" id="refund-network" aria-labelledby="network-label">${esc(view.network)} <span class="chain-note">(chain ${esc(view.chainId)})</span></span></div>
    </div>
    ${
      awaiting
        ? `<form id="claim-form" class="claim-form" novalidate>
      <label class="field-label" for="refund-address">Your address on ${esc(view.network)}</label>
      <input id="refund-address" class="claim-input" name="address" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" required aria-describedby="address-hint claim-error">
      <p class="hint" id="address-hint">Enter an address you control on ${esc(view.network)}: ${esc(view.addressForm)}. ${esc(view.tokenSymbol)} sent to an address on another network is lost. This link works once.</p>
      <button type="submit" id="claim-submit" class="button claim-submit">Send my refund to this address</button>
      <p id="claim-error" class="error" role="alert" hidden></p>
    </form>
    <noscript><p class="hint">This form needs JavaScript. Open the link in a browser with JavaScript turned on.</p></noscript>`
        : ''
    }
  </section>
  <section id="outcome" class="outcome" aria-labelledby="outcome-title"${awaiting ? ' hidden' : ''}>
    <h2 id="outcome-title" tabindex="-1">${OUTCOME_TITLE[view.status]}</h2>
    <p>To <code class="value address" id="refund-address-given">${esc(view.address ?? '')}</code></p>
    <p class="hint" id="refund-tx"${view.txHash ? '' : ' hidden'}>Transaction <code class="token-address">${esc(view.txHash ?? '')}</code></p>
  </section>
  <footer class="actions"><p class="powered">Secured by Payrail</p></footer>
</main>`;
  return layout({ title: 'Your refund', mobile: false, body, script: 'claim.js' });
}
