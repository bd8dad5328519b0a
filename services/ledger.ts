/**
 * Writes the ledger (domain/ledger.ts) as money moves, and reconciles it with the chain. Payins are entered when
 * their run decides what they are for (paid, refunded, held); chain transactions when they are mined, where they
 * physically moved money; operator funding when the operator reports it (`npm run fund`) or a dev stack starts.
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { tokenReceived } from '../chains/bridges/tx';
import { bridgeLateAfterMs } from '../domain/bridges';
import { accountKey, reconcileAccounts, stuckBridges, type AccountBalance, type AccountReconciliation, type BridgeInTransit, type LedgerAccount, type LedgerEntry } from '../domain/ledger';
import { nativeEffectEntries, type ControlledAccount } from '../domain/native-effects';
import { NATIVE_TOKEN_ADDRESS } from '../domain/payment';
import { payinId, type DetectedPayin } from '../domain/payins';
import { inFlightAccounts, insertLedgerEntries, listBridgesInTransit, listPaymentLedgerEntries, listPhysicalBalances, type PhysicalBalanceRow } from '../db/queries/ledger';
import { insertHeldPayins } from '../db/queries/held-payins';
import { findPaymentById } from '../db/queries/payments';
import type { ChainTxRow, PaymentRow } from '../db/tables';

/** A payin reached a deposit address and its run gave it a purpose: it is in the ledger from now on. */
export async function recordPayinEntry(deps: { knex: Knex }, paymentId: string, payin: DetectedPayin): Promise<void> {
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [
      { ref: `payin:${payinId(payin)}`, chainId: payin.chainId, tokenAddress: payin.tokenAddress, kind: 'payin', debit: 'deposit', credit: 'external', debitAddress: payin.to, creditAddress: null, amountUnits: payin.amountUnits, paymentId },
      ...receiverFeeEntries(payin, 'deposit', paymentId),
    ],
  });
}

/** What the receiving account paid the network on receipt (TON), from the account the transfer was booked to; once per transaction. */
const receiverFeeEntries = (payin: DetectedPayin, account: Extract<LedgerAccount, 'deposit' | 'quarantine'>, paymentId: string | null): LedgerEntry[] =>
  payin.receiverFeeUnits && BigInt(payin.receiverFeeUnits) > 0n
    ? [{
        ref: `receiver-fee:${payin.chainId}:${payin.txHash}`, chainId: payin.chainId, tokenAddress: NATIVE_TOKEN_ADDRESS, kind: 'network', debit: 'network', credit: account,
        debitAddress: null, creditAddress: payin.to, amountUnits: payin.receiverFeeUnits, paymentId,
      }]
    : [];

/** Dust of a payin is held at its deposit address. */
export async function recordHeldEntry(deps: { knex: Knex }, paymentId: string, payin: DetectedPayin, heldUnits: string): Promise<void> {
  await recordPayinEntry(deps, paymentId, payin);
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [{ ref: `held:${payinId(payin)}`, chainId: payin.chainId, tokenAddress: payin.tokenAddress, kind: 'held', debit: 'held', credit: 'deposit', debitAddress: payin.to, creditAddress: payin.to, amountUnits: heldUnits, paymentId }],
  });
}

/**
 * Transfers of tokens nobody configured into a payment's deposit address, recorded as seen (unconfirmed) for the
 * operator: never a payin, never refunded, never swept. Recorded once per transfer, whatever the rescans.
 */
export async function recordQuarantinedEntries(deps: { knex: Knex }, transfers: Array<{ paymentId: string; transfer: DetectedPayin }>): Promise<void> {
  await insertLedgerEntries({
    knex: deps.knex,
    entries: transfers.flatMap(({ paymentId, transfer }): LedgerEntry[] => [
      {
        ref: `${QUARANTINED_REF}${payinId(transfer)}`,
        chainId: transfer.chainId,
        tokenAddress: transfer.tokenAddress,
        kind: 'quarantined',
        debit: 'quarantine',
        credit: 'external',
        debitAddress: transfer.to,
        creditAddress: null,
        amountUnits: transfer.amountUnits,
        paymentId,
      },
      ...receiverFeeEntries(transfer, 'quarantine', paymentId),
    ]),
  });
}

const QUARANTINED_REF = 'quarantined:';

export interface QuarantinedTransfer {
  chainId: number;
  tokenAddress: string;
  amountUnits: string;
  txHash: string;
  logIndex: number;
  recordedAt: Date;
}

/** The quarantined transfers into one payment's deposit address, oldest first. */
export async function listQuarantinedTransfers(deps: { knex: Knex }, paymentId: string): Promise<QuarantinedTransfer[]> {
  const rows = await listPaymentLedgerEntries({ knex: deps.knex, paymentId, kind: 'quarantined' });
  return rows.map((row) => {
    // The ref carries the transfer's identity: `quarantined:<chainId>:<txHash>:<logIndex>`.
    const [, txHash = '', logIndex = ''] = row.ref.slice(QUARANTINED_REF.length).split(':');
    return { chainId: row.chain_id, tokenAddress: row.token_address, amountUnits: row.amount_units, txHash, logIndex: Number(logIndex), recordedAt: row.created_at };
  });
}

/**
 * Payins into an account every deposit shares (Stellar's receiving account) that name no payment (no memo, an
 * unknown one): listed in `held_payins` for the operator and entered in the ledger as quarantined, at once, so a
 * rescan records nothing twice and the books account for them until the operator returns or credits them.
 */
export async function quarantinePayins(deps: { knex: Knex }, payins: DetectedPayin[]): Promise<void> {
  if (payins.length === 0) return;
  await deps.knex.transaction(async (trx) => {
    await insertHeldPayins({ knex: trx, payins });
    await insertLedgerEntries({
      knex: trx,
      entries: payins.flatMap((p): LedgerEntry[] => [
        { ref: `quarantined:${payinId(p)}`, chainId: p.chainId, tokenAddress: p.tokenAddress, kind: 'quarantined', debit: 'quarantine', credit: 'external', debitAddress: p.to, creditAddress: null, amountUnits: p.amountUnits, paymentId: null },
        ...receiverFeeEntries(p, 'quarantine', null),
      ]),
    });
  });
}


/**
 * A chain transaction of ours succeeded: its movement, booked where it physically happened, by what its intent is
 * for. A sweep moves the payment's funds from its deposit address to the treasury; a refund from the deposit address
 * to the payin's sender; a payout from the treasury of the chain and token it is paid in; a bridge burn from the
 * source treasury into the bridge, its mint from the bridge into the destination treasury (what the bridge kept goes
 * to the network); a recovery of fees sent along from the deposit address back to the treasury. The Payrail fee is a
 * logical entry (the merchant's to Payrail's fees) that moves nothing on chain: it stays in the treasury. With them,
 * the native coin the transaction moved besides (`nativeEntries`: fees, gas, rent, top-ups).
 */
export async function recordMinedTxEntries(deps: { knex: Knex; chains: ChainAdapters }, tx: ChainTxRow, minedTxHash: string): Promise<void> {
  const payment = await paymentOfTx(deps, tx);
  const entries = await minedTxEntries(deps, tx, payment, minedTxHash);
  await insertLedgerEntries({ knex: deps.knex, entries: [...entries, ...(await nativeEntries(deps, tx, payment, minedTxHash, entries))] });
}

/** A chain transaction of ours failed on chain: it moved nothing, but paid its fees (`nativeEntries`). */
export async function recordFailedTxEntries(deps: { knex: Knex; chains: ChainAdapters }, tx: ChainTxRow, minedTxHash: string): Promise<void> {
  await insertLedgerEntries({ knex: deps.knex, entries: await nativeEntries(deps, tx, await paymentOfTx(deps, tx), minedTxHash, []) });
}

/** The payment a transaction of ours serves, if any. */
async function paymentOfTx(deps: { knex: Knex }, tx: ChainTxRow): Promise<PaymentRow | undefined> {
  if (!tx.payment_id) return undefined;
  const payment = await findPaymentById({ knex: deps.knex, id: tx.payment_id });
  if (!payment) throw new Error(`payment ${tx.payment_id} of ${tx.intent_key} does not exist`);
  return payment;
}

/**
 * The native coin a mined transaction of ours moved on our accounts (its treasury, its payment's deposit), as the
 * chain shows it (`ChainAdapter.nativeEffects`): fees, gas, rent, top-ups and what came back, beyond what its intent
 * booked (`booked`).
 */
async function nativeEntries(deps: { knex: Knex; chains: ChainAdapters }, tx: ChainTxRow, payment: PaymentRow | undefined, minedTxHash: string, booked: LedgerEntry[]): Promise<LedgerEntry[]> {
  const adapter = deps.chains.adapter(tx.chain_id);
  const treasury = adapter.treasuryAddress();
  const deposit = payment && payment.source_chain_id === tx.chain_id ? payment.deposit_address : null;
  const accounts: ControlledAccount[] = [
    { account: 'treasury', address: treasury, onChain: treasury },
    ...(deposit ? [{ account: 'deposit' as const, address: deposit, onChain: physicalDeposit(deps.chains, tx.chain_id, deposit) }] : []),
  ];
  const effects = await adapter.nativeEffects({ txHash: minedTxHash, rawTx: tx.raw_tx, action: tx.action });
  return nativeEffectEntries({ intentKey: tx.intent_key, chainId: tx.chain_id, paymentId: tx.payment_id, effects, accounts, booked });
}

/** What a mined transaction of ours moved of its asset, where it physically happened, as its intent says (`recordMinedTxEntries`). */
async function minedTxEntries(deps: { knex: Knex; chains: ChainAdapters }, tx: ChainTxRow, payment: PaymentRow | undefined, minedTxHash: string): Promise<LedgerEntry[]> {
  const kind = tx.intent_key.split(':')[0];
  const ref = `tx:${tx.intent_key}`;
  const treasury = deps.chains.adapter(tx.chain_id).treasuryAddress();
  const moved = { ref, chainId: tx.chain_id, tokenAddress: tx.token_address ?? '', amountUnits: tx.amount_units ?? '0', paymentId: tx.payment_id };
  const deposit = payment?.deposit_address ?? null;
  const entries: LedgerEntry[] = [];
  if (kind === 'sweep') entries.push({ ...moved, kind: 'sweep', debit: 'treasury', credit: 'deposit', debitAddress: treasury, creditAddress: deposit });
  if (kind === 'recover') entries.push({ ...moved, kind: 'sweep', debit: 'treasury', credit: 'deposit', debitAddress: treasury, creditAddress: deposit });
  // A payin back to its sender, or a merchant's refund from the deposit where the merchant funded it.
  if (kind === 'refund' || kind === 'funded-refund') entries.push({ ...moved, kind: 'refund', debit: 'external', credit: 'deposit', debitAddress: null, creditAddress: deposit });
  if (kind === 'bridge-burn') entries.push({ ...moved, kind: 'bridge', debit: 'bridge', credit: 'treasury', debitAddress: null, creditAddress: treasury });
  if (kind === 'bridge-mint') {
    // What the mint gave the treasury, as its receipt says; the rest of the burnt amount the bridge kept.
    const endpoint = deps.chains.bridgeEndpoint(tx.chain_id);
    if (!endpoint || !tx.payment_id) throw new Error(`${tx.intent_key}: no bridge reaches chain ${tx.chain_id}, or no payment`);
    const received = await tokenReceived(endpoint.provider, minedTxHash, moved.tokenAddress, treasury);
    entries.push(...bridgeArrivalEntries({ paymentId: tx.payment_id, chainId: tx.chain_id, tokenAddress: moved.tokenAddress, burntUnits: BigInt(moved.amountUnits), receivedUnits: received }, treasury, ref));
  }
  if (kind === 'payout') entries.push({ ...moved, kind: 'payout', debit: 'merchant', credit: 'treasury', debitAddress: null, creditAddress: treasury });
  // A merchant's refund leaves the source chain's treasury: the app owes it (docs/interface-decisions.md).
  if (kind === 'merchant-refund') entries.push({ ...moved, kind: 'refund', debit: 'external', credit: 'treasury', debitAddress: null, creditAddress: treasury });
  entries.push(...(await rebalanceTxEntries(deps, tx, minedTxHash)));
  if (kind === 'payout' && payment) {
    entries.push({
      ref: `fee:${payment.id}`, chainId: payment.source_chain_id, tokenAddress: payment.source_token_address, kind: 'fee', debit: 'fees', credit: 'merchant',
      debitAddress: null, creditAddress: null, amountUnits: payment.fee_units, paymentId: payment.id,
    });
  }
  return entries;
}

type BridgeArrival = { paymentId: string; chainId: number; tokenAddress: string; burntUnits: bigint; receivedUnits: bigint };

/**
 * A bridge transfer's arrival: from the bridge into the destination treasury, and what the bridge kept to the network.
 * `feeRef` names the fee once per transfer (a payment's `bridge-fee:<paymentId>` unless given).
 */
function bridgeArrivalEntries(arrival: Omit<BridgeArrival, 'paymentId'> & { paymentId: string | null }, treasury: string, ref: string, feeRef = `bridge-fee:${arrival.paymentId}`): LedgerEntry[] {
  const book = { chainId: arrival.chainId, tokenAddress: arrival.tokenAddress, paymentId: arrival.paymentId };
  return [
    { ...book, ref, kind: 'bridge', debit: 'treasury', credit: 'bridge', debitAddress: treasury, creditAddress: null, amountUnits: arrival.receivedUnits.toString() },
    { ...book, ref: feeRef, kind: 'network', debit: 'network', credit: 'bridge', debitAddress: null, creditAddress: null, amountUnits: (arrival.burntUnits - arrival.receivedUnits).toString() },
  ];
}

/** The ledger refs of a rebalance: its send, its receipt (a CCTP mint of ours, or an OFT delivery) and the bridge's fee. */
export const rebalanceRefs = (rebalanceId: string) => ({
  sent: `tx:rebalance-burn:${rebalanceId}`,
  received: [`tx:rebalance-mint:${rebalanceId}`, `rebalance-delivered:${rebalanceId}`],
  fee: `rebalance-fee:${rebalanceId}`,
});

/**
 * A rebalance's transactions, once mined (the rest of `recordMinedTxEntries`' intents give none): its send (CCTP burn
 * or OFT send) from the source treasury into the bridge, on the source chain; its mint from the bridge into the
 * destination treasury as the mint's receipt says, the rest of what was sent to the network as the bridge's fee.
 * No payment: rebalances move the treasuries' own float.
 */
async function rebalanceTxEntries(deps: { chains: ChainAdapters }, tx: ChainTxRow, minedTxHash: string): Promise<LedgerEntry[]> {
  const [kind, rebalanceId = ''] = tx.intent_key.split(':');
  const treasury = deps.chains.adapter(tx.chain_id).treasuryAddress();
  const moved = { chainId: tx.chain_id, tokenAddress: tx.token_address ?? '', amountUnits: tx.amount_units ?? '0', paymentId: null };
  if (kind === 'rebalance-burn') return [{ ...moved, ref: rebalanceRefs(rebalanceId).sent, kind: 'bridge', debit: 'bridge', credit: 'treasury', debitAddress: null, creditAddress: treasury }];
  if (kind !== 'rebalance-mint') return [];
  const endpoint = deps.chains.bridgeEndpoint(tx.chain_id);
  if (!endpoint) throw new Error(`${tx.intent_key}: no bridge reaches chain ${tx.chain_id}`);
  const received = await tokenReceived(endpoint.provider, minedTxHash, moved.tokenAddress, treasury);
  return bridgeArrivalEntries({ ...moved, burntUnits: BigInt(moved.amountUnits), receivedUnits: received }, treasury, `tx:${tx.intent_key}`, rebalanceRefs(rebalanceId).fee);
}

/** A rebalance's OFT delivery, made by LayerZero's executor without a transaction of ours: booked as the chain reported it, once. */
export async function recordRebalanceArrival(
  deps: { knex: Knex; chains: ChainAdapters },
  arrival: Omit<BridgeArrival, 'paymentId'> & { rebalanceId: string },
): Promise<void> {
  const treasury = deps.chains.adapter(arrival.chainId).treasuryAddress();
  const refs = rebalanceRefs(arrival.rebalanceId);
  await insertLedgerEntries({ knex: deps.knex, entries: bridgeArrivalEntries({ ...arrival, paymentId: null }, treasury, refs.received[1]!, refs.fee) });
}

/**
 * An operator's manual transfer of float that landed in (`direction` in) or left (out) a treasury, as the chain
 * shows it (scripts/float-record-transfer.ts): booked once per transfer between the treasury and the operator (the
 * manual route between treasuries runs through the operator's hands). What left one treasury and has not yet
 * landed in another is the operator's, in flight.
 */
export async function recordFloatTransfer(
  deps: { knex: Knex },
  transfer: { ref: string; chainId: number; tokenAddress: string; treasury: string; direction: 'in' | 'out'; amountUnits: string },
): Promise<void> {
  const inward = transfer.direction === 'in';
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [{
      ref: transfer.ref, chainId: transfer.chainId, tokenAddress: transfer.tokenAddress, kind: 'funding', debit: inward ? 'treasury' : 'operator', credit: inward ? 'operator' : 'treasury',
      debitAddress: inward ? transfer.treasury : null, creditAddress: inward ? null : transfer.treasury, amountUnits: transfer.amountUnits, paymentId: null,
    }],
  });
}

/** An OFT delivery, made by LayerZero's executor without a transaction of ours: booked as the chain reported it, once per payment. */
export async function recordBridgeArrival(deps: { knex: Knex; chains: ChainAdapters }, arrival: BridgeArrival): Promise<void> {
  const treasury = deps.chains.adapter(arrival.chainId).treasuryAddress();
  await insertLedgerEntries({ knex: deps.knex, entries: bridgeArrivalEntries(arrival, treasury, `bridge-delivered:${arrival.paymentId}`) });
}

/**
 * Money the operator put into an account we control: a treasury, or (a dev stack's genesis) the receiving account
 * deposits share. `ref` names it once: a funding transaction, a devnet's genesis.
 */
export async function recordFunding(
  deps: { knex: Knex },
  funding: { ref: string; chainId: number; tokenAddress: string; account: 'treasury' | 'deposit'; address: string; amountUnits: string },
): Promise<void> {
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [{
      ref: funding.ref, chainId: funding.chainId, tokenAddress: funding.tokenAddress, kind: 'funding', debit: funding.account, credit: 'operator',
      debitAddress: funding.address, creditAddress: null, amountUnits: funding.amountUnits, paymentId: null,
    }],
  });
}

/**
 * A dev stack's genesis: what each treasury (and the receiving account deposits share) holds of the native coin and
 * each configured token when the stack provisions it, booked as the operator's funding (once per chain, token and account), so a fresh
 * stack's books balance from the start.
 */
export async function recordGenesisFunding(deps: { knex: Knex; chains: ChainAdapters }): Promise<void> {
  for (const chain of deps.chains.registry.chains) {
    const adapter = deps.chains.adapter(chain.chainId);
    const accounts = [{ account: 'treasury' as const, address: adapter.treasuryAddress() }, ...(adapter.sharedReceiver ? [{ account: 'deposit' as const, address: adapter.sharedReceiver }] : [])];
    for (const { account, address } of accounts) {
      const assets = new Set([NATIVE_TOKEN_ADDRESS, ...Object.values(chain.tokens).map((token) => token.address)]);
      for (const tokenAddress of assets) {
        const units = await adapter.balanceOf(address, tokenAddress);
        await recordFunding(deps, { ref: `funding:genesis:${chain.chainId}:${tokenAddress.toLowerCase()}:${address}`, chainId: chain.chainId, tokenAddress, account, address, amountUnits: units.toString() });
      }
    }
  }
}

export type AccountKind = 'deposit' | 'treasury' | 'receiving';

/** One account and asset as reconcile sees it: the ledger, the chain, and whether money of ours is moving there now. */
export interface AccountReport extends AccountReconciliation {
  kind: AccountKind;
  /** A transaction of ours touching it is not booked yet, or its payment's run still decides: a difference is not (yet) a loss. */
  inFlight: boolean;
}

export interface StuckBridge extends BridgeInTransit {
  tokenAddress: string;
  amountUnits: string;
}

export interface LedgerReconciliation {
  accounts: AccountReport[];
  stuckBridges: StuckBridge[];
  /** Accounts that differ (settled, compared) and stuck bridges: reconcile fails when this is not 0. */
  failures: number;
}

/** A difference that is a failure: the account is settled. */
export const isFailure = (a: AccountReport): boolean => !a.inFlight && a.difference !== 0n;

/**
 * Compares what the ledger says every physical account holds, per asset, with what the chain says it holds: each
 * deposit address with entries (Stellar's deposits read at the receiving account they share), every treasury; and
 * flags bridge transfers in transit past their protocol's normal time. With `appId`, only that merchant app's
 * deposit addresses (treasuries are shared: compared unscoped only). Money of ours on the move makes an account
 * differ for a moment, so an account is `inFlight` (listed, not failed) while a transaction of ours touching it is
 * signed and not booked, while its payment's run is still open, or when its ledger balance changed during the read.
 */
export async function reconcileLedger(deps: { knex: Knex; chains: ChainAdapters }, scope: { appId?: string } = {}, now = new Date()): Promise<LedgerReconciliation> {
  const busyBefore = await inFlightAccounts({ knex: deps.knex });
  const before = physicalAccounts(deps.chains, await listPhysicalBalances({ knex: deps.knex, appId: scope.appId }));
  const onChain = new Map<string, bigint>();
  await Promise.all(
    before.map(async (a) => {
      const tokenAddress = deps.chains.registry.tokenByAddress(a.chainId, a.tokenAddress)?.address ?? a.tokenAddress;
      onChain.set(accountKey(a), await deps.chains.adapter(a.chainId).balanceOf(a.address, tokenAddress));
    }),
  );
  const busyAfter = await inFlightAccounts({ knex: deps.knex });
  const after = new Map(physicalAccounts(deps.chains, await listPhysicalBalances({ knex: deps.knex, appId: scope.appId })).map((a) => [accountKey(a), a.units]));
  const busy = (a: AccountBalance & { kind: AccountKind }) =>
    [...busyBefore, ...busyAfter].some((b) => b.chainId === a.chainId && (a.kind === 'treasury' ? b.address === null : sameAddress(deps.chains, b.chainId, b.address, a.address)));
  const accounts = reconcileAccounts(before, onChain).map((r, i) => ({
    ...r,
    kind: before[i]!.kind,
    inFlight: busy(before[i]!) || after.get(accountKey(r)) !== r.units,
  }));
  const stuck = scope.appId === undefined ? await findStuckBridges(deps, now) : [];
  return { accounts, stuckBridges: stuck, failures: accounts.filter(isFailure).length + stuck.length };
}

/** A deposit's physical account: its own address, or the account every deposit shares (Stellar's receiving account). */
const physicalDeposit = (chains: ChainAdapters, chainId: number, address: string): string => chains.adapter(chainId).sharedReceiver ?? address;

const sameAddress = (chains: ChainAdapters, chainId: number, deposit: string | null, account: string): boolean =>
  deposit !== null && physicalDeposit(chains, chainId, deposit).toLowerCase() === account.toLowerCase();

/**
 * The ledger's balances per physical account: a deposit's `deposit`, `held` and `quarantine` entries are one address
 * on chain. Addresses are compared without case (EVM's checksums), read with the spelling first booked.
 */
function physicalAccounts(chains: ChainAdapters, rows: PhysicalBalanceRow[]): Array<AccountBalance & { kind: AccountKind }> {
  const accounts = new Map<string, AccountBalance & { kind: AccountKind }>();
  for (const row of rows) {
    const treasury = row.account === 'treasury';
    const address = treasury ? row.address : physicalDeposit(chains, row.chainId, row.address);
    const kind: AccountKind = treasury ? 'treasury' : address === row.address ? 'deposit' : 'receiving';
    const key = accountKey({ chainId: row.chainId, tokenAddress: row.tokenAddress, address: address.toLowerCase() });
    const found = accounts.get(key);
    if (found) {
      found.units += row.units;
      if (!found.accounts.includes(row.account)) found.accounts.push(row.account);
    } else accounts.set(key, { chainId: row.chainId, tokenAddress: row.tokenAddress, address, accounts: [row.account], units: row.units, kind });
  }
  return [...accounts.values()].sort((a, b) => a.chainId - b.chainId || a.kind.localeCompare(b.kind) || a.address.localeCompare(b.address) || a.tokenAddress.localeCompare(b.tokenAddress));
}

/** Bridge transfers burnt or sent and not arrived, past their protocol's normal time (the chains file's `expectedSeconds`). */
async function findStuckBridges(deps: { knex: Knex; chains: ChainAdapters }, now: Date): Promise<StuckBridge[]> {
  const inTransit = (await listBridgesInTransit({ knex: deps.knex })).map((b) => {
    const endpoint = deps.chains.bridgeEndpoint(b.chainId);
    const symbol = deps.chains.registry.tokenByAddress(b.chainId, b.tokenAddress)?.symbol ?? '';
    const expectedSeconds = (b.purpose === 'bridge burn' ? endpoint?.cctp?.expectedSeconds : endpoint?.oft[symbol]?.expectedSeconds) ?? 0;
    return { ...b, lateAfterMs: bridgeLateAfterMs({ expectedSeconds }) };
  });
  return stuckBridges(inTransit, now);
}
