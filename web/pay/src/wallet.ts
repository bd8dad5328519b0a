/**
 * The hosted page's "pay with a browser wallet": finds the wallets in the browser by the standards they speak
 * (EIP-6963 and the legacy `window.ethereum` for EVM chains, the Wallet Standard for Solana), and asks the one the
 * customer picks to send the payment GET /pay/<id>/wallet describes. Bundled by Vite into dist/pay/wallet.js and
 * served from Payrail's origin, so the page's CSP stays `script-src 'self'`. The page's own script (pay.js) follows
 * the payment's status as before.
 */
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { address, appendTransactionMessageInstructions, compileTransaction, createNoopSigner, createTransactionMessage, getTransactionEncoder, pipe, setTransactionMessageFeePayer, setTransactionMessageLifetimeUsingBlockhash, type Blockhash } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token-2022';
import type { PayWallet } from '../../../api/schemas/pay';

type Request = PayWallet['wallet'];
type EvmRequest = Extract<Request, { standard: 'eip1193' }>;
type SolanaRequest = Extract<Request, { standard: 'solana' }>;

interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}
interface Eip6963Detail {
  info: { uuid: string; name: string; icon: string; rdns: string };
  provider: Eip1193Provider;
}

/** A refusal worded for the customer. */
class PayError extends Error {}

const section = document.getElementById('connect-wallet');
const list = document.getElementById('wallet-list');
const hint = document.getElementById('wallet-hint');
const message = document.getElementById('wallet-message');
const walletUrl = section?.dataset.walletUrl;

/** One payment at a time from this page: set at the first click and kept once a wallet sent (never sent twice). */
let busy = false;
let sent = false;

function say(text: string, kind: 'error' | 'info'): void {
  if (!message) return;
  message.textContent = text;
  message.className = kind === 'error' ? 'error' : 'wallet-sent';
  message.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  message.hidden = false;
}

async function fetchRequest(): Promise<Request | string> {
  const res = await fetch(walletUrl!, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  const body = (await res.json()) as PayWallet | { message?: string };
  if (!res.ok || !('wallet' in body)) return ('message' in body && body.message) || 'This payment cannot be paid from a wallet now.';
  return body.wallet;
}

function buttons(): HTMLButtonElement[] {
  return Array.from(list?.querySelectorAll('button') ?? []);
}

function addWallet(key: string, name: string, icon: string | null, pay: () => Promise<string>): void {
  if (!list || list.querySelector(`[data-wallet="${CSS.escape(key)}"]`)) return;
  const item = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button wallet-connect';
  button.dataset.wallet = key;
  if (icon && /^data:image\//.test(icon)) {
    const img = document.createElement('img');
    img.src = icon;
    img.alt = '';
    img.width = 20;
    img.height = 20;
    button.append(img);
  }
  button.append(`Pay with ${name}`);
  button.disabled = busy || sent;
  button.addEventListener('click', () => void payWith(button, pay));
  item.append(button);
  list.append(item);
  if (hint) hint.textContent = 'Approve one transaction in your wallet. It sends the exact amount to this payment.';
}

function removeWallet(key: string): void {
  list?.querySelector(`[data-wallet="${CSS.escape(key)}"]`)?.parentElement?.remove();
}

async function payWith(button: HTMLButtonElement, pay: () => Promise<string>): Promise<void> {
  if (busy || sent) return;
  busy = true;
  for (const b of buttons()) b.disabled = true;
  button.setAttribute('aria-busy', 'true');
  say('Confirm the payment in your wallet…', 'info');
  try {
    const id = await pay();
    sent = true;
    say(`Sent from your wallet (transaction ${id.slice(0, 10)}…${id.slice(-6)}). Waiting for the network to confirm it.`, 'info');
  } catch (err) {
    say(explain(err), 'error');
  } finally {
    busy = false;
    button.removeAttribute('aria-busy');
    if (!sent) for (const b of buttons()) b.disabled = false;
  }
}

/** What went wrong, for the customer: the wallet's standard error codes, or its own words. */
function explain(err: unknown): string {
  if (err instanceof PayError) return err.message;
  const e = err as { code?: number; message?: string; name?: string } | undefined;
  const text = `${e?.name ?? ''} ${e?.message ?? ''}`;
  if (e?.code === 4001 || /reject|denied|declin|cancel/i.test(text)) return 'You declined the request in your wallet. Nothing was sent.';
  if (e?.code === 4100) return 'The wallet did not allow this page to use your account. Connect the account in the wallet and try again.';
  if (e?.code === 4900 || e?.code === 4901 || /disconnect|not (?:available|found)|no longer/i.test(text)) return 'The wallet is no longer available. Reopen or unlock it, or choose another wallet, and try again.';
  if (/insufficient|not enough|exceeds balance/i.test(text)) return 'Your wallet does not hold enough for this payment and its network fee.';
  return `The wallet could not send the payment${e?.message ? `: ${e.message}` : '.'} Nothing was charged by this page; you can try again.`;
}

// EVM: EIP-1193 providers, found through EIP-6963 announcements and the legacy window.ethereum.

function evm(request: EvmRequest): void {
  const seen = new Set<Eip1193Provider>();
  const offer = (key: string, name: string, icon: string | null, provider: Eip1193Provider) => {
    if (seen.has(provider)) return;
    seen.add(provider);
    addWallet(key, name, icon, async () => payEvm(provider, (await current()) as EvmRequest));
  };
  window.addEventListener('eip6963:announceProvider', (event) => {
    const { info, provider } = (event as CustomEvent<Eip6963Detail>).detail;
    offer(info.uuid, info.name, info.icon, provider);
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  // Wallets that predate EIP-6963 inject one provider; offered once the announcements had their turn.
  window.setTimeout(() => {
    const legacy = (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
    if (legacy) offer('window.ethereum', 'browser wallet', null, legacy);
    noWalletsYet(request);
  }, 300);
}

const pad32 = (hex: string) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');

async function payEvm(provider: Eip1193Provider, request: EvmRequest): Promise<string> {
  const call = (method: string, params?: unknown[]) => provider.request({ method, params });
  const accounts = (await call('eth_requestAccounts')) as string[];
  const from = accounts[0];
  if (!from) throw new PayError('The wallet shared no account. Unlock it and try again.');
  if (String(await call('eth_chainId')).toLowerCase() !== request.chainIdHex) {
    try {
      await call('wallet_switchEthereumChain', [{ chainId: request.chainIdHex }]);
    } catch (err) {
      if ((err as { code?: number }).code !== 4902) throw err;
      if (request.rpcUrls.length === 0) throw new PayError(`Your wallet does not know ${request.chainName}. Add the network in your wallet, then try again.`);
      await call('wallet_addEthereumChain', [
        { chainId: request.chainIdHex, chainName: request.chainName, rpcUrls: request.rpcUrls, nativeCurrency: request.nativeCurrency, blockExplorerUrls: request.blockExplorerUrls.length ? request.blockExplorerUrls : undefined },
      ]);
    }
    if (String(await call('eth_chainId')).toLowerCase() !== request.chainIdHex) throw new PayError(`Your wallet is on another network. Switch it to ${request.chainName} and try again.`);
  }
  const balance = request.tokenAddress
    ? BigInt(String(await call('eth_call', [{ to: request.tokenAddress, data: `0x70a08231${pad32(from)}` }, 'latest'])))
    : BigInt(String(await call('eth_getBalance', [from, 'latest'])));
  if (balance < BigInt(request.amountUnits)) throw new PayError(`This wallet account (${from.slice(0, 6)}…${from.slice(-4)}) does not hold enough on ${request.chainName} for this payment.`);
  return String(await call('eth_sendTransaction', [{ from, ...request.transaction }]));
}

// Solana: wallets registered through the Wallet Standard that sign and send on the payment's cluster.

const SIGN_AND_SEND = 'solana:signAndSendTransaction';

interface SignAndSend {
  signAndSendTransaction(...inputs: Array<{ account: WalletAccount; chain: string; transaction: Uint8Array }>): Promise<Array<{ signature: Uint8Array }>>;
}
interface Connect {
  connect(input?: { silent?: boolean }): Promise<{ accounts: readonly WalletAccount[] }>;
}

function solana(request: SolanaRequest): void {
  const wallets = getWallets();
  const fits = (w: Wallet) => SIGN_AND_SEND in w.features && 'standard:connect' in w.features && w.chains.includes(request.chain as `${string}:${string}`);
  const offer = (w: Wallet) => {
    if (fits(w)) addWallet(`standard:${w.name}`, w.name, w.icon, async () => paySolana(wallets.get(), w, (await current()) as SolanaRequest));
  };
  wallets.get().forEach(offer);
  wallets.on('register', (...added) => added.forEach(offer));
  wallets.on('unregister', (...removed) => removed.forEach((w) => removeWallet(`standard:${w.name}`)));
  window.setTimeout(() => noWalletsYet(request), 300);
}

async function paySolana(present: readonly Wallet[], wallet: Wallet, request: SolanaRequest): Promise<string> {
  if (!present.includes(wallet)) throw new PayError(`${wallet.name} is no longer available. Reopen it or choose another wallet, and try again.`);
  const { accounts } = await (wallet.features['standard:connect'] as Connect).connect();
  const account = accounts.find((a) => a.chains.includes(request.chain as `${string}:${string}`)) ?? accounts[0];
  if (!account) throw new PayError('The wallet shared no account. Unlock it and try again.');
  const payer = createNoopSigner(address(account.address));
  const recipient = address(request.recipient);
  const amount = BigInt(request.amountUnits);
  let instructions;
  if (request.tokenAddress && request.tokenProgram) {
    const mint = address(request.tokenAddress);
    const tokenProgram = address(request.tokenProgram);
    const [destination] = await findAssociatedTokenPda({ owner: recipient, mint, tokenProgram });
    const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram });
    instructions = [
      // The deposit's token account, created by the customer's wallet if it does not exist yet (idempotent).
      getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: recipient, mint, tokenProgram }),
      getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount, decimals: request.decimals }, { programAddress: tokenProgram }),
    ];
  } else {
    instructions = [getTransferSolInstruction({ source: payer, destination: recipient, amount })];
  }
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(payer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: request.recentBlockhash as Blockhash, lastValidBlockHeight: BigInt(request.lastValidBlockHeight) }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const transaction = new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
  const [result] = await (wallet.features[SIGN_AND_SEND] as SignAndSend).signAndSendTransaction({ account, chain: request.chain, transaction });
  if (!result) throw new PayError('The wallet returned no transaction.');
  return base58(result.signature);
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58(bytes: Uint8Array): string {
  let n = bytes.reduce((acc, b) => (acc << 8n) + BigInt(b), 0n);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = '1' + out;
  }
  return out;
}

function noWalletsYet(request: Request): void {
  if (buttons().length > 0 || !hint) return;
  hint.textContent =
    request.standard === 'eip1193'
      ? 'No wallet found in this browser. Install or unlock a wallet extension, or pay with the address and QR code above.'
      : 'No Solana wallet found in this browser. Install or unlock one, or pay with the address and QR code above.';
}

/** The request as of now: read again at each click (a fresh Solana blockhash; a payment that was paid meanwhile refuses). */
async function current(): Promise<Request> {
  const request = await fetchRequest();
  if (typeof request === 'string') throw new PayError(request);
  return request;
}

async function start(): Promise<void> {
  if (!section || !walletUrl) return;
  const request = await fetchRequest();
  if (typeof request === 'string') return;
  section.hidden = false;
  if (request.standard === 'eip1193') evm(request);
  else solana(request);
}

void start();
