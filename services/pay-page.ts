import type { ChainAdapters } from '../chains/adapters';
import { chainFamily } from '../chains/families';
import { paymentDestination, type WalletRequest } from '../chains/family';
import { arrivedTowards, type CountablePayin } from '../domain/collecting';
import { formatUnits } from '../domain/money';
import { canonicalPrice } from '../domain/order-resource';
import { PAY_CURRENCIES, isPayCurrencyCode } from '../domain/pay-currencies';
import { PAID_STATUSES, isNativeToken, type PaymentStatus } from '../domain/payment';
import type { OrderRow, PaymentRow } from '../db/tables';
import { resolvePayCurrency } from './pay-currencies';

/**
 * What the hosted page shows, and what its script polls. Public (the unguessable id is the capability), so it
 * carries nothing of the merchant's: no callback URL, e-mail, merchant token or payout wallet.
 */

export type PageView = 'choose' | 'pay' | 'paid' | 'expired' | 'canceled' | 'invalid' | 'refunded';

export interface PagePayment {
  id: string;
  status: PaymentStatus;
  amount: string;
  /** Amount in base units. */
  units: string;
  /**
   * While the payment collects short of its amount: what its payins brought so far (confirmed or still confirming);
   * null before anything arrived, and once all of it did.
   */
  arrived: string | null;
  /** What is left to pay: the amount less what arrived. The amount's copy button and the link (`uri`) carry it. */
  left_to_pay: string;
  symbol: string;
  /** The ERC-20 contract; null for the chain's native coin. */
  token_address: string | null;
  chain_id: number;
  /** The network as the customer knows it ("Arbitrum"). */
  network: string;
  /** The configured chain's own name, shown when it stands in for another (devnet). */
  chain_name: string;
  /** Where the wallet sends: the deposit address, or (Stellar) the receiving account every payment shares. */
  address: string;
  /** The memo the payment must carry (Stellar's MEMO_ID); without it the payment is held, not credited. */
  memo: string | null;
  /** Where a memo is needed: the one address that carries it (Stellar's muxed `M…`), for wallets that take it. */
  memo_free_address: string | null;
  /** The family's payment link (EIP-681, Solana Pay, ton://, tron:, SEP-7) for what is left to pay: what the QR code and the wallet link carry. */
  uri: string;
  /** What the wallet link opens, as its button says ("Open in a TON wallet"). */
  uri_label: string;
  /** A wallet in the browser can be asked to pay (GET /pay/<id>/wallet says what to send). */
  connect_wallet: boolean;
  tx_hash: string | null;
}

export interface PageCurrencyOption {
  code: string;
  label: string;
  token: string;
  network: string;
}

export interface PageState {
  kind: 'order' | 'payment';
  id: string;
  /** The order's status (orders) or the payment's status (payments). */
  status: string;
  view: PageView;
  /** One line for the live status region. */
  status_text: string;
  headline: string;
  message: string;
  title: string;
  description: string | null;
  merchant: string;
  price: string;
  expires_at: string;
  success_url: string | null;
  cancel_url: string | null;
  can_cancel: boolean;
  mobile: boolean;
  options: PageCurrencyOption[];
  payment: PagePayment | null;
}

function pagePayment(payment: PaymentRow, payins: CountablePayin[], chains: ChainAdapters, payCurrency: string | null): PagePayment {
  // Short: something arrived while the payment collects, and something is left (once all of it arrived, it confirms).
  const collected = payment.status === 'payment_started' ? arrivedTowards(payment, payins) : null;
  const arrivedUnits = collected ? collected.confirmedUnits + collected.confirmingUnits : 0n;
  const short = collected !== null && arrivedUnits > 0n && collected.leftUnits > 0n;
  const leftUnits = short ? collected.leftUnits : BigInt(payment.source_amount_units);
  const native = isNativeToken(payment.source_token_address);
  const adapter = chains.adapter(payment.source_chain_id);
  const chain = adapter.config;
  const network = payCurrency && isPayCurrencyCode(payCurrency) ? PAY_CURRENCIES[payCurrency].network : chain.name;
  const address = chains.registry.displayAddress(payment.source_chain_id, payment.deposit_address);
  const tokenAddress = native ? null : payment.source_token_address;
  const destination = paymentDestination(adapter, address);
  return {
    id: payment.id,
    status: payment.status,
    amount: formatUnits(BigInt(payment.source_amount_units), payment.source_decimals),
    units: payment.source_amount_units,
    arrived: short ? formatUnits(arrivedUnits, payment.source_decimals) : null,
    left_to_pay: formatUnits(leftUnits, payment.source_decimals),
    symbol: payment.source_token_symbol,
    token_address: tokenAddress,
    chain_id: payment.source_chain_id,
    network,
    chain_name: chain.name,
    ...destination,
    memo_free_address: destination.memo ? address : null,
    uri: adapter.paymentUri({ address: payment.deposit_address, tokenAddress, amountUnits: leftUnits.toString(), decimals: payment.source_decimals }),
    uri_label: chainFamily(chains.registry.chain(payment.source_chain_id).family).walletLinkLabel,
    connect_wallet: adapter.walletRequest !== undefined,
    tx_hash: payment.payin_tx_hash,
  };
}

const TEXTS: Record<PageView, { headline: string; message: string }> = {
  choose: { headline: 'Choose how to pay', message: 'Pick a currency and network. You will then see the address to send it to.' },
  pay: { headline: 'Send your payment', message: 'Send exactly the amount below, on the network shown, to the deposit address.' },
  paid: { headline: 'Payment received', message: 'Thank you. Your payment has arrived and is confirmed.' },
  expired: { headline: 'This payment has expired', message: 'It was not paid in the time allowed. If you still want to buy, start again from the shop.' },
  canceled: { headline: 'Payment cancelled', message: 'You cancelled this payment. Nothing was taken.' },
  invalid: { headline: 'Payment could not be accepted', message: 'The amount sent did not match this payment. It is being sent back to the address it came from.' },
  refunded: { headline: 'Payment refunded', message: 'This payment was sent back to the address it came from.' },
};

function paymentStatusText(status: PaymentStatus): string {
  if (status === 'payment_unpaid') return 'Waiting for your payment';
  if (status === 'payment_started') return 'Payment detected, waiting for confirmations';
  if (PAID_STATUSES.includes(status)) return 'Paid';
  if (status === 'payment_expired') return 'Expired';
  if (status === 'payment_bounced') return 'Not accepted, being returned';
  return 'Refunded';
}

const ORDER_STATUS_TEXT: Record<OrderRow['status'], string> = {
  new: 'Waiting for you to choose a currency',
  pending: 'Waiting for your payment',
  confirming: 'Payment detected, waiting for confirmations',
  paid: 'Paid',
  expired: 'Expired',
  canceled: 'Cancelled',
  invalid: 'Not accepted, being returned',
  refunded: 'Refunded',
};

export function orderPageState(input: {
  order: OrderRow;
  payment: PaymentRow | null | undefined;
  /** The payment's recorded payins. */
  payins: CountablePayin[];
  chains: ChainAdapters;
  merchant: string;
}): PageState {
  const { order, payment, chains } = input;
  let view: PageView;
  switch (order.status) {
    case 'new':
    case 'pending':
    case 'confirming':
      view = payment ? 'pay' : 'choose';
      break;
    default:
      view = order.status;
  }
  const options = order.currency_options.flatMap((code): PageCurrencyOption[] => {
    if (!isPayCurrencyCode(code)) return [];
    const resolved = resolvePayCurrency(chains.registry, code);
    const def = PAY_CURRENCIES[code];
    return resolved.ok ? [{ code, label: resolved.currency.label, token: def.token, network: def.network }] : [];
  });
  const price = `${canonicalPrice(order.price_amount)} ${order.price_currency}`;
  // An invalid order's payin is on its way back until the refund is confirmed.
  const returned = order.status === 'invalid' && payment?.status === 'payment_refunded';
  return {
    kind: 'order',
    id: order.id,
    status: order.status,
    view,
    // Between the payment's creation and the order's move to `pending`, the customer is already waiting to pay.
    status_text: returned ? 'Not accepted, returned' : ORDER_STATUS_TEXT[order.status === 'new' && payment ? 'pending' : order.status],
    ...TEXTS[view],
    ...(returned ? { message: 'The amount sent did not match this payment. It was sent back to the address it came from.' } : {}),
    title: order.title ?? (order.merchant_order_id ? `Order ${order.merchant_order_id}` : 'Your order'),
    description: order.description,
    merchant: input.merchant,
    price,
    expires_at: (payment?.expires_at ?? order.expires_at).toISOString(),
    success_url: order.success_url,
    cancel_url: order.cancel_url,
    can_cancel: order.status === 'new' || order.status === 'pending',
    mobile: order.mobile,
    options,
    payment: payment ? pagePayment(payment, input.payins, chains, order.selected_currency) : null,
  };
}

export function paymentPageState(input: { payment: PaymentRow; payins: CountablePayin[]; chains: ChainAdapters; merchant: string }): PageState {
  const { payment, chains } = input;
  const s = payment.status;
  const view: PageView =
    s === 'payment_unpaid' || s === 'payment_started'
      ? 'pay'
      : PAID_STATUSES.includes(s)
        ? 'paid'
        : s === 'payment_expired'
          ? 'expired'
          : s === 'payment_bounced'
            ? 'invalid'
            : 'refunded';
  const page = pagePayment(payment, input.payins, chains, null);
  return {
    kind: 'payment',
    id: payment.id,
    status: s,
    view,
    status_text: page.arrived ? `${page.arrived} of ${page.amount} ${page.symbol} arrived: ${page.left_to_pay} ${page.symbol} left to pay` : paymentStatusText(s),
    ...TEXTS[view],
    title: payment.display.title ?? payment.display.name ?? 'Payment',
    description: payment.display.description,
    merchant: input.merchant,
    price: `${page.amount} ${page.symbol}`,
    expires_at: payment.expires_at.toISOString(),
    success_url: null,
    cancel_url: null,
    can_cancel: false,
    mobile: false,
    options: [],
    payment: page,
  };
}

/**
 * What a wallet connected to the page is asked to send for the payment (chains/family.ts `WalletRequest`), or null
 * when its family's wallets pay by link only.
 */
export async function walletRequestOf(payment: PaymentRow, chains: ChainAdapters): Promise<WalletRequest | null> {
  const adapter = chains.adapter(payment.source_chain_id);
  if (!adapter.walletRequest) return null;
  return adapter.walletRequest({
    address: chains.registry.displayAddress(payment.source_chain_id, payment.deposit_address),
    tokenAddress: isNativeToken(payment.source_token_address) ? null : payment.source_token_address,
    amountUnits: payment.source_amount_units,
    decimals: payment.source_decimals,
  });
}
