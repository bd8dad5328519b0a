/**
 * The chain-family adapter interface. Every chain Payrail serves is reached through one `ChainAdapter` of its
 * family (chains/adapters.ts resolves a chain id to it); services, activities and workflows call the adapter and
 * never ask which family a chain is. Each family implements it on its network's standard API (EVM JSON-RPC,
 * Solana JSON-RPC, toncenter, the Tron full-node API, Horizon), so the devnets and mainnet run one code path.
 */
import type { ConfirmedPayin, DetectedPayin } from '../domain/payins';
import type { UsdRate } from '../domain/pricing';
import type { ChainConfig, ChainFamily } from './registry';

export type { ChainFamily };

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
 * What Payrail signs on a chain, in the family's own terms: each adapter turns it into one transaction.
 * Bridge steps are the devnet bridge stand-in (burn on the source chain, mint on the destination); real bridge
 * protocols replace them behind the same step.
 */
export type ChainAction =
  | { kind: 'sweep'; paymentId: string; tokenAddress: string; to: string; amountUnits: string }
  | { kind: 'transfer'; tokenAddress: string; to: string; amountUnits: string }
  | { kind: 'bridgeBurn'; paymentId: string; tokenAddress: string; amountUnits: string; destinationChainId: number }
  | { kind: 'bridgeMint'; paymentId: string; tokenAddress: string; amountUnits: string; sourceChainId: number };

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
  readonly family: ChainFamily;
  readonly config: ChainConfig;

  /** The address in the form Payrail stores and shows, or null when it is not a valid address of this family. */
  normalizeAddress(address: string): string | null;
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

/** How each family's addresses look, for refusals that name the expected form. */
export const ADDRESS_FORMS: Record<ChainFamily, string> = {
  evm: '0x and 40 hex digits, not the zero address; mixed case must match the EIP-55 checksum',
  solana: 'a base58 ed25519 public key of 32 bytes, such as a wallet address',
  ton: 'a TON account address, raw (0:<64 hex>) or user-friendly (48 base64url characters)',
  tron: 'a base58check address starting with T',
  stellar: 'a G… account id (StrKey)',
};
