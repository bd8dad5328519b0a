import QRCode from 'qrcode';
import type { PageState } from '../../services/pay-page';

/** Escapes text for HTML content and double-quoted attribute values. */
export function esc(value: string | number | null | undefined): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export const ASSET_PREFIX = '/pay/assets';

/**
 * The hosted page: no inline script or style (the Content-Security-Policy allows only this origin's files), no
 * external resources, so it works offline. Without JavaScript it still shows everything needed to pay.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // For browsers that predate CSP frame-ancestors: the pay page is never framed (no clickjacking of a payment).
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The hosted pages' frame: the page's stylesheet and script, plus `script` (another of ASSET_PREFIX's files) if named. */
export function layout(options: { title: string; mobile: boolean; body: string; walletScript?: boolean; script?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${esc(options.title)} · Payrail</title>
<link rel="stylesheet" href="${ASSET_PREFIX}/pay.css">
<script src="${ASSET_PREFIX}/pay.js" defer></script>${options.script ? `\n<script src="${ASSET_PREFIX}/${options.script}" defer></script>` : ''}${options.walletScript ? `\n<script type="module" src="${ASSET_PREFIX}/wallet.js"></script>` : ''}
</head>
<body class="${options.mobile ? 'mobile' : 'desktop'}">
${options.body}
</body>
</html>
`;
}

async function qrSvg(uri: string, label: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#111111', light: '#ffffff' } });
  return svg.replace('<svg ', `<svg role="img" aria-label="${esc(label)}" focusable="false" class="qr-code" `);
}

const formatExpiry = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function chooser(state: PageState): string {
  if (state.view !== 'choose') return '';
  const buttons = state.options
    .map(
      (o) => `<li><button type="button" class="currency" data-currency="${esc(o.code)}">
        <span class="token">${esc(o.token)}</span> <span class="network">on ${esc(o.network)}</span>
      </button></li>`,
    )
    .join('\n      ');
  return `<section class="choose" aria-labelledby="choose-heading">
    <h2 id="choose-heading">Choose how to pay</h2>
    <p class="hint">Pick the token and network your wallet will pay with.</p>
    <ul class="currencies" role="list">
      ${buttons}
    </ul>
    <p id="choose-error" class="error" role="alert" hidden></p>
  </section>`;
}

async function paymentDetails(state: PageState): Promise<string> {
  const p = state.payment;
  if (!p || state.view !== 'pay') return '';
  const networkNote = p.chain_name !== p.network ? ` <span class="chain-note">(${esc(p.chain_name)}, chain ${p.chain_id})</span>` : ` <span class="chain-note">(chain ${p.chain_id})</span>`;
  const qr = await qrSvg(p.uri, `QR code to pay ${p.left_to_pay} ${p.symbol} on ${p.network} to ${p.address}`);
  const qrFigure = `<figure class="qr">${qr}<figcaption>Scan with your wallet app</figcaption></figure>`;
  // A payment that collects short shows what arrived, and asks for the rest: the copy button and the QR carry it.
  const arrived = p.arrived
    ? `
    <div class="field arrived" role="note" aria-labelledby="arrived-label">
      <span class="field-label" id="arrived-label">Arrived so far</span>
      <div class="value-row"><span class="value" id="pay-arrived">${esc(p.arrived)} ${esc(p.symbol)} <span class="of">of ${esc(p.amount)} ${esc(p.symbol)}</span></span></div>
    </div>`
    : '';
  return `<section class="pay" aria-labelledby="pay-heading">
    <h2 id="pay-heading">${p.arrived ? 'Send the rest' : 'Send exactly'}</h2>${arrived}
    <div class="field">
      <span class="field-label" id="amount-label">${p.arrived ? 'Left to pay' : 'Amount'}</span>
      <div class="value-row">
        <span class="value amount" id="pay-amount" aria-labelledby="amount-label">${esc(p.left_to_pay)} ${esc(p.symbol)}</span>
        <button type="button" class="copy" data-copy="${esc(p.left_to_pay)}" aria-label="Copy amount ${esc(p.left_to_pay)}">Copy</button>
      </div>
    </div>
    <div class="field">
      <span class="field-label" id="network-label">Network</span>
      <div class="value-row"><span class="value" id="pay-network" aria-labelledby="network-label">${esc(p.network)}${networkNote}</span></div>
    </div>
    <div class="field">
      <span class="field-label" id="address-label">${p.memo ? 'Address' : 'Deposit address'}</span>
      <div class="value-row">
        <code class="value address" id="deposit-address" aria-labelledby="address-label">${esc(p.address)}</code>
        <button type="button" class="copy" data-copy="${esc(p.address)}" aria-label="Copy deposit address">Copy</button>
      </div>
    </div>${
      p.memo
        ? `
    <div class="field memo" role="note">
      <span class="field-label" id="memo-label">Memo (ID) — required</span>
      <div class="value-row">
        <code class="value address" id="pay-memo" aria-labelledby="memo-label">${esc(p.memo)}</code>
        <button type="button" class="copy" data-copy="${esc(p.memo)}" aria-label="Copy memo ${esc(p.memo)}">Copy</button>
      </div>
      <p class="memo-warning"><strong>Without this memo the payment cannot be matched to your order.</strong> Enter it in your wallet or exchange (its field may be called memo, tag or ID). A payment without it is held for manual handling, not credited.</p>
    </div>${
      p.memo_free_address
        ? `
    <details class="field alternative">
      <summary>Your wallet takes muxed (M…) addresses? Send to one address, no memo</summary>
      <div class="value-row">
        <code class="value address" id="memo-free-address">${esc(p.memo_free_address)}</code>
        <button type="button" class="copy" data-copy="${esc(p.memo_free_address)}" aria-label="Copy the address that carries the memo">Copy</button>
      </div>
    </details>`
        : ''
    }`
        : ''
    }
    ${state.mobile ? `<a class="button wallet" href="${esc(p.uri)}">${esc(p.uri_label)}</a>
    ${qrFigure}` : `${qrFigure}
    <a class="button wallet secondary" href="${esc(p.uri)}">${esc(p.uri_label)}</a>`}
    ${p.connect_wallet ? connectWallet(p.id) : ''}
    <p class="hint">${
      p.token_address
        ? `Send only ${esc(p.symbol)} (token contract <code class="token-address">${esc(p.token_address)}</code>) on ${esc(p.network)}.`
        : `Send only ${esc(p.symbol)}, the network's own coin, on ${esc(p.network)}.`
    } Other tokens sent here are not credited to this payment: they are held (quarantined) for manual review.</p>
  </section>`;
}

/** Filled by the wallet script (web/pay/src/wallet.ts) with a button per wallet found in the browser; hidden without it. */
function connectWallet(paymentId: string): string {
  return `<section id="connect-wallet" class="connect" aria-labelledby="connect-heading" data-wallet-url="/pay/${esc(paymentId)}/wallet" hidden>
      <h3 id="connect-heading">Pay from a wallet in this browser</h3>
      <p class="hint" id="wallet-hint">Looking for wallets in this browser…</p>
      <ul id="wallet-list" class="wallets" role="list"></ul>
      <p id="wallet-message" class="error" role="alert" hidden></p>
    </section>`;
}

function outcome(state: PageState): string {
  const terminal = state.view !== 'choose' && state.view !== 'pay';
  const back = state.view === 'paid' ? state.success_url : state.cancel_url;
  return `<section id="outcome" class="outcome" aria-labelledby="outcome-title"${terminal ? '' : ' hidden'}>
    <h2 id="outcome-title" tabindex="-1">${terminal ? esc(state.headline) : ''}</h2>
    <p id="outcome-message">${terminal ? esc(state.message) : ''}</p>
    <p id="outcome-redirect" class="hint"${state.view === 'paid' && state.success_url ? '' : ' hidden'}>Taking you back to the shop…</p>
    <p><a id="outcome-link" class="button secondary" href="${esc(back ?? '#')}"${terminal && back ? '' : ' hidden'}>Return to the shop</a></p>
  </section>`;
}

export async function renderPayPage(state: PageState, urls: { state: string; choose?: string; cancel?: string }): Promise<string> {
  const data = [
    ['kind', state.kind],
    ['view', state.view],
    ['status', state.status],
    ['state-url', urls.state],
    ['choose-url', urls.choose],
    ['cancel-endpoint', urls.cancel],
    ['expires-at', state.expires_at],
    ['left-to-pay', state.view === 'pay' ? state.payment?.left_to_pay : undefined],
    ['success-url', state.success_url],
    ['cancel-url', state.cancel_url],
  ]
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([k, v]) => `data-${k}="${esc(v)}"`)
    .join(' ');
  const live = state.view === 'choose' || state.view === 'pay';
  const body = `<main id="pay" class="card" ${data}>
  <header class="summary">
    <p class="merchant">${esc(state.merchant)}</p>
    <h1 id="page-title">${esc(state.title)}</h1>
    ${state.description ? `<p class="description">${esc(state.description)}</p>` : ''}
    <p class="price"><span class="price-label">Total</span> <strong id="price">${esc(state.price)}</strong></p>
  </header>
  <div class="status-bar">
    <p class="status" data-status="${esc(state.status)}"><span class="status-label">Status:</span> <span id="status" role="status" aria-live="polite">${esc(state.status_text)}</span></p>
    <p class="countdown" id="timer"${live ? '' : ' hidden'}><span class="countdown-label">Time left:</span> <span id="countdown" role="timer" aria-live="off">until ${esc(formatExpiry(state.expires_at))}</span></p>
  </div>
  ${chooser(state)}
  ${await paymentDetails(state)}
  ${outcome(state)}
  <footer class="actions">
    ${state.can_cancel ? `<button type="button" id="cancel" class="link-button">Cancel payment${state.cancel_url ? ' and return to the shop' : ''}</button>` : ''}
    <p id="announcer" class="visually-hidden" role="status" aria-live="polite"></p>
    <noscript><p class="hint">Reload this page to see the latest status.</p></noscript>
    <p class="powered">Secured by Payrail</p>
  </footer>
</main>`;
  return layout({ title: state.title, mobile: state.mobile, body, walletScript: state.view === 'pay' && state.payment?.connect_wallet === true });
}

export function renderNotFoundPage(what: 'order' | 'payment' | 'refund'): string {
  return layout({
    title: `${what.charAt(0).toUpperCase()}${what.slice(1)} not found`,
    mobile: false,
    body: `<main id="pay" class="card" data-view="missing">
  <header class="summary">
    <h1>We could not find this ${what}</h1>
  </header>
  <section class="outcome" aria-labelledby="missing-help">
    <h2 id="missing-help">What you can do</h2>
    <p>Check that you opened the whole link the shop gave you. If it still does not work, go back to the shop and start the payment again.</p>
  </section>
  <footer class="actions"><p class="powered">Secured by Payrail</p></footer>
</main>`,
  });
}
