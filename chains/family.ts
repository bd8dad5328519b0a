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
import type { ChainAction } from '../domain/chain-txs';
import type { NativeEffects } from '../domain/native-effects';
import type { ConfirmedPayin, DetectedPayin } from '../domain/payins';
import type { UsdRate } from '../domain/pricing';
import type { BridgeEndpoint } from './bridges/endpoint';
import type { RecentReads } from './recent-reads';
import type { CommonChainConfig } from './config';

/**
 * One look at a payin: still waiting, confirmed at the asked depth, gone (reorged, failed, or not the transfer the
 * chain shows at that identity: `reason` says which fact differs), or unknown to the node.
 */
export type PayinCheck = { state: 'pending' } | { state: 'missing' } | { state: 'dropped'; reason?: string } | { state: 'confirmed'; payin: ConfirmedPayin };

/**
 * One look at a transaction that may have been signed several times (replacements): not on chain, on chain but not
 * yet deep enough (or in a block being reorganised), or at the asked depth with its outcome, each with which of the
 * hashes it was. `pending` names the block when only the depth is short, so a wait need not look before then.
 */
export type TxCheck =
  | { state: 'unmined' }
  | { state: 'pending'; txHash: string; blockNumber?: number }
  | { state: 'mined'; txHash: string; blockNumber: number; succeeded: boolean; confirmedAt: string };

/**
 * Accounts that receive for a deposit without being its address (TON: the deposit wallet's jetton wallets), recorded
 * once per deposit in PostgreSQL, so a scan matches a block's transactions against them whatever the number of open
 * payments, and any worker, after any restart, sees the same.
 */
export interface DepositAccounts {
  /** Watched deposits whose accounts are not recorded yet (those created since the last scan), with their payment's token. */
  unrecorded(): Promise<Array<{ address: string; tokenAddress: string }>>;
  /** Records each deposit's accounts (possibly none): the deposit is not returned by `unrecorded` again. */
  record(deposits: Array<{ address: string; accounts: Array<{ account: string; tokenAddress: string }> }>): Promise<void>;
  /** Of these accounts, those recorded for a watched deposit: account → the deposit address and the token it receives. */
  find(accounts: string[]): Promise<Map<string, { address: string; tokenAddress: string }>>;
}

export type { ChainAction } from '../domain/chain-txs';
export type { NativeEffects } from '../domain/native-effects';

export interface SignedChainTx {
  /** The bytes to broadcast (hex for EVM, base64 wire transaction for Solana). */
  rawTx: string;
  /** The id the chain will give it (EVM transaction hash, Solana signature). */
  txHash: string;
  /** EIP-1559 fees it was signed with (families without fee markets: absent), kept so a replacement can outbid it. */
  fees?: TxFees;
  /**
   * Families with `expiry`: the chain's bound past which it can no longer be included, in the family's measure
   * (Solana: the last valid block height; Tron: the expiration, ms; TON: `valid_until`, Unix seconds).
   */
  validUntil?: string;
}

/**
 * How a chain orders one sending account's transactions. `nonce` (EVM): each carries the account's next nonce,
 * several may wait in the mempool at consecutive nonces. `sequence` (TON seqno, Stellar sequence): the chain takes
 * one transaction of an account at a time, so the next is prepared and signed only once the one before is mined
 * (or can no longer land). `none` (Solana, Tron): transactions reference a recent block and land on their own.
 */
export type TxSequencing = 'nonce' | 'sequence' | 'none';

/** What the outbox knows of a transaction it looks for: the action it carries (null: a bridge call), its current bytes and nonce. */
export interface SentChainTx {
  action: ChainAction | null;
  rawTx: string;
  nonce: number;
}

/** A signed transaction the outbox stores, as an expiry check reads it. */
export interface StoredChainTx {
  rawTx: string;
  txHash: string;
  signer: string;
  nonce: number;
  validUntil: string | null;
}

/**
 * How a family's transactions stop being able to land: a Solana blockhash past its last valid block height, a Tron
 * expiration behind the head block, a TON or Stellar sequence number used by another transaction. The outbox signs
 * an intent again only when `canLand` says no and none of its hashes is on chain: never two alive at once.
 */
export interface TxExpiry {
  /**
   * False only when the chain shows the transaction can never be included any more (read on chain, never the clock).
   * A `checkTx` after a false reads the chain as of that read or later: the transaction may have landed just before.
   */
  canLand(tx: StoredChainTx): Promise<boolean>;
}

/**
 * What an action would cost the treasury on chain, estimated now, in base units of the chain's fee coin (ETH, SOL,
 * TON, TRX, XLM) with its decimals: fees, energy, gas attached and not returned, rent not recovered. `refusal`: the
 * chain cannot carry the action without a cost Payrail never pays (rent for a refund recipient's token account).
 */
export interface TxCost {
  feeUnits: bigint;
  feeDecimals: number;
  refusal?: string;
}

/** The node refused the transaction as invalid (funds, signature, sequence), not a transport failure: sending it again changes nothing. */
export class TxRefused extends Error {}

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
  /** The signer's next nonce (sequence) as the node sees it (families without account nonces: 0). */
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

/**
 * What the hosted page's script needs to ask a connected wallet for the payment, by the standard the family's wallets
 * speak: EIP-1193 (EVM: the chain to switch to or add, and the transaction to send) or the Wallet Standard's
 * `solana:signAndSendTransaction` (the cluster, the mint and a recent blockhash the transaction is built on).
 */
export type WalletRequest =
  | {
      standard: 'eip1193';
      /** The chain id as `wallet_switchEthereumChain` takes it (0x hex). */
      chainIdHex: string;
      chainName: string;
      /** What `wallet_addEthereumChain` is given: an RPC the customer's wallet can reach (empty: the chain cannot be added). */
      rpcUrls: string[];
      nativeCurrency: { name: string; symbol: string; decimals: number };
      blockExplorerUrls: string[];
      /** The ERC-20 paid; null for the native coin. */
      tokenAddress: string | null;
      recipient: string;
      amountUnits: string;
      /** The call `eth_sendTransaction` carries (`from` is the wallet's account). */
      transaction: { to: string; value: string; data: string };
    }
  | {
      standard: 'solana';
      /** The Wallet Standard chain (`solana:mainnet`, `solana:devnet`, `solana:localnet`). */
      chain: string;
      /** The mint paid; null for SOL. */
      tokenAddress: string | null;
      tokenProgram: string | null;
      decimals: number;
      recipient: string;
      amountUnits: string;
      recentBlockhash: string;
      lastValidBlockHeight: string;
    };

export interface ChainAdapter {
  /** The chain's entry of the chains file (the family's adapter has its family's own config type). */
  readonly config: CommonChainConfig;

  /**
   * The payment's own deposit address: one per payment, never reused, always sweepable by the service. A `pooled`
   * family (chains/family.ts `ChainFamily.depositAddresses`) computes it only where the deposit seed is (the worker).
   */
  depositAddress(paymentId: string): string;
  /**
   * Optional (absent: the deposit address itself, no memo): what a wallet is told to pay the deposit address, e.g.
   * (Stellar) the shared receiving account and the payment's memo.
   */
  paymentDestination?(depositAddress: string): PaymentDestination;
  /**
   * Optional (absent: each deposit has its own address): the one account every deposit shares (Stellar's receiving
   * account). `scanPayins` reports a transfer into it under the deposit address its memo names (or the account itself
   * without one); one that names no watched deposit is quarantined for the operator, as received by this account.
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
   * Every transfer of any asset in the block range into any address, as the chain shows it: of the configured tokens,
   * of other tokens, and of the native coin (the caller keeps those into watched deposits, counts the assets a deposit
   * takes as payins, quarantines the others, and quarantines anything into `sharedReceiver` that names no deposit).
   * A scan reads the range's blocks (or ledgers, or the shared account's operations) whole, so its cost is what the
   * chain's new blocks cost, never what open deposits cost, and no number of transactions hides a transfer. Transfers
   * of the service's own (the treasury's fees and top-ups) are left out. Calls `heartbeat` between its reads.
   */
  scanPayins(input: { fromBlock: number; toBlock: number; accounts: DepositAccounts; heartbeat: () => void }): Promise<DetectedPayin[]>;
  /**
   * One look at a payin at `depth` blocks (the chain's confirmations or finality depth). The transfer is read again
   * from the chain by its identity (transaction and index) alone, and `confirmed.payin` carries what the chain shows:
   * amount, asset, recipient (memo included) and sender. `dropped` when the chain's transfer at that identity is not
   * the one given (a forged or stale signal), or the transaction failed or vanished.
   */
  checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck>;
  /**
   * Optional (absent: the scan of the transaction's block shows every one of its transfers): every transfer of any
   * asset one transaction made, to or from anyone, the service's own included, as the chain shows it (`[]` for a
   * transaction it does not know): the legs of an operator's float transfer (services/float-transfers.ts).
   */
  transactionTransfers?(txHash: string): Promise<DetectedPayin[]>;
  /**
   * Optional (absent: any asset the chain serves): whether a transfer of `tokenAddress` into a deposit of a payment in
   * `paymentToken` is a payin (counted, or refunded by its run); any other transfer into a deposit is quarantined.
   */
  takesPayin?(paymentToken: string, tokenAddress: string): boolean;

  /**
   * Builds the action's transaction for the treasury to sign (estimating fees now). `replacing`: the stored attempt
   * of the same intent that can no longer land, when the action is signed again (its parts that did land, such as a
   * Tron top-up, stay the intent's).
   */
  prepare(action: ChainAction, replacing?: { rawTx: string }): Promise<PreparedChainTx>;
  /** What the action's transaction would cost the treasury now (refund economics: a refund that costs too much is held). */
  estimateCost(action: ChainAction): Promise<TxCost>;
  /**
   * Sends stored signed bytes; the chain already having them is success. `nonce-used`: the signer's nonce was used
   * already (by these bytes or another transaction; only the receipts tell). Throws `TxRefused` when the node
   * refuses them as invalid.
   */
  broadcast(tx: SignedChainTx): Promise<'sent' | 'known' | 'nonce-used'>;
  /** How the chain orders a sending account's transactions (the outbox allocates nonces, or sends one at a time). */
  readonly sequencing: TxSequencing;
  /** `sequence` families: the account whose sequence the action's transaction takes (one in flight at a time). */
  sequenceAccount?(action: ChainAction): string;
  /** Present when `sequencing` is `nonce`: how a stuck transaction is signed again. */
  readonly replacement?: TxReplacement;
  /** Present when a signed transaction can stop being able to land: the outbox then signs the intent again. */
  readonly expiry?: TxExpiry;
  /**
   * Optional: after a transfer out of a deposit landed, what of the native coin the treasury sent along can come
   * back (Tron: the TRX its top-up left at the deposit), as an action from the deposit to the treasury; null when
   * nothing is left.
   */
  recovery?(action: ChainAction & { kind: 'sweep' }, signed: { rawTx: string; txHash: string }): Promise<(ChainAction & { kind: 'sweep' }) | null>;
  /**
   * One look at a transaction signed as any of `txHashes` (the first signature and its replacements). Mined means
   * landed for the receiver: the receiver's side shows the transfer of `sent.action` (a TON message chain through,
   * the token balance or event, the operation's result); a bounce or failure anywhere is `succeeded: false`.
   */
  checkTx(txHashes: string[], depth: number, sent?: SentChainTx): Promise<TxCheck>;
  /**
   * What one of Payrail's mined transactions (`txHash`, as the outbox stored it: its bytes and action) did to the
   * native coin, read from the chain: the fees each payer burnt, and every other change of a native balance it made
   * (value sent and received, rent paid or returned, a top-up, gas sent along and its excess back). A succeeded or a
   * failed transaction alike: a failed one paid its fees too.
   */
  nativeEffects(tx: { txHash: string; rawTx: string; action: ChainAction | null }): Promise<NativeEffects>;
  /** What `owner` holds of the token now (base units). */
  balanceOf(owner: string, tokenAddress: string): Promise<bigint>;
  /** A USD price feed on this chain (Chainlink AggregatorV3 on EVM); families without feeds throw PriceUnavailable. */
  readUsdPriceFeed(feed: string, options: { maxAgeSeconds: number; nowSeconds: number }): Promise<FeedReading>;

  /** Block explorer links, when the chain has an explorer configured. */
  explorer: { tx(txHash: string): string | null; address(address: string): string | null };
  /** The link a wallet opens to pay (EIP-681 `ethereum:`, Solana Pay `solana:`, `ton://transfer`). */
  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): string;
  /**
   * Optional (absent: the family's wallets pay by link and QR only): what a wallet connected to the hosted page is
   * asked to send for the payment (chains/family.ts `WalletRequest`), read now (a Solana blockhash).
   */
  walletRequest?(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): Promise<WalletRequest>;
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

/**
 * A family's addresses: how they are checked and stored, how a customer's wallet writes them, and how a refusal
 * names the expected form.
 */
export interface AddressRules<Config = unknown> {
  /** The address in the form Payrail stores, or null when it is not a valid address of this family. */
  normalize(address: string): string | null;
  /**
   * A stored deposit address as the family's wallets write it, as the API and the hosted page show it (EVM: EIP-55;
   * TON: user-friendly non-bounceable, as a deposit wallet not deployed yet must be paid). `normalize` takes it back.
   */
  display(address: string, chain: Config): string;
  /** How a valid address looks, for refusals that name the expected form ("0x and 40 hex digits, …"). */
  readonly form: string;
}

/**
 * The environment variables a family reads (their names are the operators'), as zod schemas of `process.env`:
 * `signing` holds what only a worker has (treasury keys, deposit seeds: anything that can move money), `deposits`
 * the public data deposit addresses follow from (Tron: the deposit account's xpub), the only keys the API holds. A
 * key a family cannot work without is required: a process whose chains file has a chain of the family refuses to
 * start without it.
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
  /**
   * How a new payment gets its deposit address. `derived`: any process computes it from the payment id and public
   * data (`ChainAdapter.depositAddress`: EVM's CREATE2 address, Stellar's muxed account, Tron's key from the xpub).
   * `pooled`: computing it needs the deposit seed (Solana's and TON's hardened-only ed25519 keys), so the worker
   * makes addresses ahead into a pool the API claims one from (services/deposit-addresses.ts).
   */
  readonly depositAddresses: 'derived' | 'pooled';
  /**
   * Optional: the `deposits` variables that follow from the worker's `signing` ones (Tron: the deposit account's
   * xpub, from the deposit seed), so a deployment can be set up from its seeds: the dev stack writes them, and
   * `npm run deposit-keys` prints them for an operator.
   */
  depositKeysOf?(signing: Readonly<NodeJS.ProcessEnv>): Record<string, string>;
  readonly addresses: AddressRules<z.output<Schema>>;
  /** What the family's payment link (`ChainAdapter.paymentUri`) opens, as the hosted page's button says it. */
  readonly walletLinkLabel: string;
  /** The adapter of one configured chain; `reads` shares a block's answers between the chain's callers. */
  createAdapter(config: z.output<Schema>, keys: FamilyKeys<Env>, reads: RecentReads): ChainAdapter;
  /** The largest block (slot, ledger) range one watcher scan of the chain covers. */
  scanRangeBlocks(config: z.output<Schema>): number;
}

/** A family's descriptor, its types inferred from its schema and environment. */
export const defineChainFamily = <Schema extends z.ZodObject, Env extends FamilyEnv>(family: ChainFamily<Schema, Env>): ChainFamily<Schema, Env> => family;
