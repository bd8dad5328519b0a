/**
 * A chain family, and the adapter interface each of its chains is reached through. A family is one folder
 * (`chains/<family>/index.ts`) exporting one `ChainFamily` descriptor: its chains-file schema, the environment keys
 * it reads, its address rules, its adapter factory and its scan range; `chains/families.ts` lists them. Every chain
 * Payrail serves is reached through one `ChainAdapter` (chains/adapters.ts resolves a chain id to it); services,
 * activities and workflows call the adapter and never ask which family a chain is. Each family implements it on its
 * network's standard API (EVM JSON-RPC, Solana JSON-RPC, toncenter, the Tron full-node API, Horizon), so the devnets
 * and mainnet run one code path.
 */
import type { z } from 'zod';
import type { ConfirmedPayin, DetectedPayin } from '../domain/payins';
import type { UsdRate } from '../domain/pricing';
import type { BridgeEndpoint } from './bridges/endpoint';
import type { RecentReads } from './recent-reads';
import type { CommonChainConfig } from './config';

/** One look at a payin: still waiting, confirmed at the asked depth, gone (reorged or failed), or unknown to the node. */
export type PayinCheck = { state: 'pending' } | { state: 'missing' } | { state: 'dropped' } | { state: 'confirmed'; payin: ConfirmedPayin };

/**
 * One look at a transaction that may have been signed several times (replacements): not on chain, on chain but not
 * yet deep enough (or in a block being reorganised), or at the asked depth with its outcome, each with which of the
 * hashes it was. `pending` names the block when only the depth is short, so a wait need not look before then.
 */
export type TxCheck =
  | { state: 'unmined' }
  | { state: 'pending'; txHash: string; blockNumber?: number }
  | { state: 'mined'; txHash: string; blockNumber: number; succeeded: boolean; confirmedAt: string };

/** Deposit addresses the chain's watcher looks after: open payments, and closed ones within the late-payin window. */
export interface WatchedDeposits {
  /** Every watched deposit with the token address its payment takes (families that read per account need them all). */
  all(): Promise<Array<{ address: string; paymentId: string; tokenAddress: string }>>;
}

/**
 * What Payrail signs on a chain, in the family's own terms: each adapter turns it into one transaction. A sweep moves
 * a payment's funds out of its deposit address; a transfer pays from the treasury (payouts, refunds). Bridges sign
 * contract calls of their own (`BridgeEndpoint.prepareCall`).
 */
export type ChainAction =
  | { kind: 'sweep'; paymentId: string; tokenAddress: string; to: string; amountUnits: string }
  | { kind: 'transfer'; tokenAddress: string; to: string; amountUnits: string };

export interface SignedChainTx {
  /** The bytes to broadcast (hex for EVM, base64 wire transaction for Solana). */
  rawTx: string;
  /** The id the chain will give it (EVM transaction hash, Solana signature). */
  txHash: string;
  /** EIP-1559 fees it was signed with (families without fee markets: absent), kept so a replacement can outbid it. */
  fees?: TxFees;
}

export interface TxFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The call would fail on chain (the node's estimate reverted): refused visibly rather than retried. */
export class TxWouldRevert extends Error {}

/**
 * How a family with ordered nonces (EVM) unsticks a transaction that is not mined: it is signed again, at its own
 * nonce with higher fees (replaced), or at a new nonce when another transaction used its nonce (re-planned).
 */
export interface TxReplacement {
  /** Blocks a transaction may wait unmined before it is replaced at its nonce with higher fees (the chain's setting). */
  readonly afterBlocks: number;
  /** How many of the signer's transactions the chain has mined: the nonce it takes next. */
  minedNonce(signer: string): Promise<number>;
  /** The signer's next nonce as the node sees it, pending transactions included. */
  pendingNonce(signer: string): Promise<number>;
  /** Signs the stored transaction's call again: at `nonce` with current fees, or (null) at its own nonce with bumped fees. */
  resign(rawTx: string, options: { nonce: number | null }): Promise<SignedChainTx & { nonce: number; fees: TxFees }>;
}

/** A transaction ready to be signed inside the outbox's database transaction, once its signer nonce is allocated. */
export interface PreparedChainTx {
  signer: string;
  /** Recorded as the outbox row's `to_address`. */
  to: string;
  /** The signer's next nonce as the node sees it (families without account nonces: 0). */
  chainPendingNonce: number;
  /**
   * Optional: native coin the treasury sends the signer in the same signed bundle, before the call, so the signer
   * (a deposit address holding only tokens) can pay the call's fees (Tron: TRX burnt for energy and bandwidth).
   * Checked against the payment's terms before signing (services/money-terms.ts `assertFuelOnTerms`).
   */
  fuel?: { to: string; amountUnits: string };
  sign(nonce: number): Promise<SignedChainTx>;
}

/** Where a wallet pays a deposit: an address, and the memo it must carry when deposits share one account (Stellar). */
export interface PaymentDestination {
  address: string;
  memo: string | null;
}

/** Where a wallet pays the deposit address: the adapter's answer, or the address itself where the family has no memo. */
export const paymentDestination = (adapter: ChainAdapter, depositAddress: string): PaymentDestination =>
  adapter.paymentDestination?.(depositAddress) ?? { address: depositAddress, memo: null };

export interface ChainAdapter {
  /** The chain's entry of the chains file (the family's adapter has its family's own config type). */
  readonly config: CommonChainConfig;

  /** The payment's own deposit address: one per payment, never reused, always sweepable by the service. */
  depositAddress(paymentId: string): string;
  /**
   * Optional (absent: the deposit address itself, no memo): what a wallet is told to pay the deposit address, e.g.
   * (Stellar) the shared receiving account and the payment's memo.
   */
  paymentDestination?(depositAddress: string): PaymentDestination;
  /**
   * Optional (absent: each deposit has its own address): the one account every deposit shares (Stellar's receiving
   * account). `scanPayins` reports a payin into it that matches no watched deposit (no memo, an unknown one) with it
   * as the recipient, and the watcher quarantines that payin for the operator.
   */
  readonly sharedReceiver?: string;
  /** The hot wallet that pays fees, holds payout liquidity and receives sweeps. */
  treasuryAddress(): string;
  /**
   * Optional (absent: 0, no fuel): the most native coin (base units) the treasury may send a deposit address with a
   * sweep to pay its fees; from the chains file (Tron: the call's `fee_limit`), never from input.
   */
  readonly maxSweepFuelUnits?: bigint;

  /** The chain's newest block (slot, ledger) number; also where a sent transaction's wait for replacement starts. */
  head(): Promise<number>;
  /** The hash of block `n` as the node has it now (null when it has none), to notice a reorged cursor. */
  blockHash(n: number): Promise<string | null>;
  /** When block (slot) `n` was produced, in Unix seconds (null when the node has no time for it). */
  blockTime(n: number): Promise<number | null>;
  /**
   * Transfers into watched deposit addresses in the block range (the caller matches recipients again): of the
   * configured tokens, and of any other token contract where the family's read returns them (EVM reads every
   * token's `Transfer` logs at once), which the caller quarantines. Batched: the RPC cost grows with the range's transfers or with batches of deposits, never
   * with one call per open payment. Calls `heartbeat` between its reads.
   */
  scanPayins(input: { fromBlock: number; toBlock: number; watched: WatchedDeposits; heartbeat: () => void }): Promise<DetectedPayin[]>;
  /** One look at a payin at `depth` blocks (the chain's confirmations or finality depth). */
  checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck>;

  /** Builds the action's transaction for the treasury to sign (estimating fees now). */
  prepare(action: ChainAction): Promise<PreparedChainTx>;
  /**
   * Sends stored signed bytes; the chain already having them is success. `nonce-used`: the signer's nonce was used
   * already (by these bytes or another transaction; only the receipts tell).
   */
  broadcast(tx: SignedChainTx): Promise<'sent' | 'known' | 'nonce-used'>;
  /** Whether a signer's transactions must land in nonce order (earlier unmined ones are re-broadcast first). */
  readonly orderedNonces: boolean;
  /** Present when `orderedNonces`: how a stuck transaction is signed again. */
  readonly replacement?: TxReplacement;
  /** One look at a transaction signed as any of `txHashes` (the first signature and its replacements). */
  checkTx(txHashes: string[], depth: number): Promise<TxCheck>;
  /** What `owner` holds of the token now (base units). */
  balanceOf(owner: string, tokenAddress: string): Promise<bigint>;
  /** A USD price feed on this chain (Chainlink AggregatorV3 on EVM); families without feeds throw PriceUnavailable. */
  readUsdPriceFeed(feed: string, options: { maxAgeSeconds: number; nowSeconds: number }): Promise<FeedReading>;

  /** Block explorer links, when the chain has an explorer configured. */
  explorer: { tx(txHash: string): string | null; address(address: string): string | null };
  /** The link a wallet opens to pay (EIP-681 `ethereum:`, Solana Pay `solana:`, `ton://transfer`). */
  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): string;
  /**
   * Optional (absent: no bridge reaches the chain): the chain's side of the bridges (chains/bridges): its bridge
   * contracts, a read provider, the treasury, and preparing a contract call for the outbox (EVM: CCTP, OFT).
   */
  readonly bridgeEndpoint?: BridgeEndpoint;

  destroy(): void;
}

export interface FeedReading extends UsdRate {
  feed: string;
  roundId: bigint;
  /** Unix seconds of the answer. */
  updatedAt: number;
}

/** The feed cannot be used now: no answer, a non-positive answer, an answer older than allowed, or no feeds at all. */
export class PriceUnavailable extends Error {}

/** A family's addresses: how they are checked and stored, and how a refusal names the expected form. */
export interface AddressRules {
  /** The address in the form Payrail stores and shows, or null when it is not a valid address of this family. */
  normalize(address: string): string | null;
  /** How a valid address looks, for refusals that name the expected form ("0x and 40 hex digits, …"). */
  readonly form: string;
}

/**
 * The environment variables a family reads (their names are the operators'), as zod schemas of `process.env`:
 * `signing` holds what only a worker has (treasury and other signing keys), `deposits` what deposit addresses need
 * (seeds; the API holds these and nothing more). A key a family cannot work without is required: a process whose
 * chains file has a chain of the family refuses to start without it.
 */
export interface FamilyEnv<Signing extends z.ZodObject = z.ZodObject, Deposits extends z.ZodObject = z.ZodObject> {
  readonly signing: Signing;
  readonly deposits: Deposits;
}

/** The keys an adapter is made with: the family's deposit keys always, its signing keys in a worker only. */
export type FamilyKeys<Env extends FamilyEnv> = z.output<Env['deposits']> & Partial<z.output<Env['signing']>>;

/**
 * One chain family: everything Payrail knows of it, in one object (`chains/<family>/index.ts`). Adding a family is
 * its folder and one line in `chains/families.ts`; the registry's schema, key loading, the adapters and the API's
 * list of families are derived from that list.
 */
export interface ChainFamily<Schema extends z.ZodObject = z.ZodObject, Env extends FamilyEnv = FamilyEnv> {
  /** The chains file's `family` of its chains. */
  readonly id: z.output<Schema>['family'];
  /** One chain's entry of the chains file: `family: <id>`, the common fields (chains/config.ts) and its own. */
  readonly chainSchema: Schema;
  readonly env: Env;
  readonly addresses: AddressRules;
  /** The adapter of one configured chain; `reads` shares a block's answers between the chain's callers. */
  createAdapter(config: z.output<Schema>, keys: FamilyKeys<Env>, reads: RecentReads): ChainAdapter;
  /** The largest block (slot, ledger) range one watcher scan of the chain covers. */
  scanRangeBlocks(config: z.output<Schema>): number;
}

/** A family's descriptor, its types inferred from its schema and environment. */
export const defineChainFamily = <Schema extends z.ZodObject, Env extends FamilyEnv>(family: ChainFamily<Schema, Env>): ChainFamily<Schema, Env> => family;
