/**
 * The sign-once outbox of chain transactions. An intent's transaction is signed once and stored before it is
 * broadcast; every later attempt re-broadcasts those same bytes. A crash anywhere therefore yields at most one
 * transaction per intent on chain.
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import type { ChainAction } from '../chains/family';
import type { ChainDepth, ChainTxIntent, ChainTxResult } from '../domain/chain-txs';
import { allocateNonce, findChainTx, insertChainTx, listUnminedBefore, markChainTxMined } from '../db/queries/chain-txs';
import type { ChainTxRow } from '../db/tables';
import type { Logger } from '../lib/logger';

export interface ChainTxServiceDeps {
  knex: Knex;
  /** Each chain's adapter signs with its family's treasury key. */
  chains: ChainAdapters;
  log: Logger;
  /** Fault injection for crash tests: called right after a transaction was broadcast, before the step returns. */
  afterBroadcast?: (purpose: string) => void;
}

/** Base units moved by a chain transaction, for the outbox record and the conservation checks. */
interface Movement {
  purpose: string;
  tokenAddress: string | null;
  amountUnits: string | null;
}

export type SweepRecipient = { kind: 'treasury' } | { kind: 'address'; address: string };

export function createChainTxService(deps: ChainTxServiceDeps) {
  const { knex, chains, log } = deps;

  async function submit(intent: ChainTxIntent, action: ChainAction, movement: Movement): Promise<{ intentKey: string; txHash: string }> {
    const row = (await findChainTx({ knex, intentKey: intent.intentKey })) ?? (await signAndStore(intent, action, movement));
    await broadcast(row);
    deps.afterBroadcast?.(movement.purpose);
    return { intentKey: row.intent_key, txHash: row.tx_hash };
  }

  async function signAndStore(intent: ChainTxIntent, action: ChainAction, movement: Movement): Promise<ChainTxRow> {
    const prepared = await chains.adapter(intent.chainId).prepare(action);
    try {
      return await knex.transaction(async (trx) => {
        const nonce = await allocateNonce({ trx, chainId: intent.chainId, signer: prepared.signer, chainPendingNonce: prepared.chainPendingNonce });
        const signed = await prepared.sign(nonce);
        const tx = {
          intent_key: intent.intentKey,
          payment_id: intent.paymentId,
          purpose: movement.purpose,
          chain_id: intent.chainId,
          signer: prepared.signer,
          nonce: String(nonce),
          to_address: prepared.to,
          token_address: movement.tokenAddress,
          amount_units: movement.amountUnits,
          raw_tx: signed.rawTx,
          tx_hash: signed.txHash,
        };
        await insertChainTx({ trx, tx });
        return { ...tx, status: 'signed', block_number: null, created_at: new Date(), updated_at: new Date() };
      });
    } catch (err) {
      // A concurrent attempt of the same intent won the insert: use its transaction.
      const existing = await findChainTx({ knex, intentKey: intent.intentKey });
      if (existing) return existing;
      throw err;
    }
  }

  /** Re-broadcasts the signer's unmined transactions with lower nonces first, so this one can be mined. */
  async function broadcast(row: ChainTxRow): Promise<void> {
    const adapter = chains.adapter(row.chain_id);
    if (adapter.orderedNonces) {
      for (const earlier of await listUnminedBefore({ knex, chainId: row.chain_id, signer: row.signer, nonce: row.nonce })) {
        await adapter.broadcast({ rawTx: earlier.raw_tx, txHash: earlier.tx_hash });
      }
    }
    await adapter.broadcast({ rawTx: row.raw_tx, txHash: row.tx_hash });
  }

  return {
    /** Moves funds out of a deposit address (deploying its forwarder if needed). Idempotent per intent key. */
    sweepDeposit(input: ChainTxIntent & { paymentId: string; tokenAddress: string; recipient: SweepRecipient; amountUnits: string; purpose: string }) {
      const to = input.recipient.kind === 'treasury' ? chains.adapter(input.chainId).treasuryAddress() : input.recipient.address;
      const action: ChainAction = { kind: 'sweep', paymentId: input.paymentId, tokenAddress: input.tokenAddress, to, amountUnits: input.amountUnits };
      return submit(input, action, { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits });
    },

    /** A transfer from the treasury (payouts, refunds from the treasury). Idempotent per intent key. */
    transferFromTreasury(input: ChainTxIntent & { tokenAddress: string; to: string; amountUnits: string; purpose: string }) {
      const action: ChainAction = { kind: 'transfer', tokenAddress: input.tokenAddress, to: input.to, amountUnits: input.amountUnits };
      return submit(input, action, { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits });
    },

    /** Idempotent per intent key, and the bridge stand-in refuses a second burn of the same payment. */
    burnForBridge(input: ChainTxIntent & { paymentId: string; tokenSymbol: string; amountUnits: string; destinationChainId: number }) {
      const token = chains.registry.token(input.chainId, input.tokenSymbol);
      const action: ChainAction = { kind: 'bridgeBurn', paymentId: input.paymentId, tokenAddress: token.address, amountUnits: input.amountUnits, destinationChainId: input.destinationChainId };
      return submit(input, action, { purpose: 'bridge burn', tokenAddress: token.address, amountUnits: input.amountUnits });
    },

    /** Idempotent per intent key, and the bridge stand-in refuses a second mint of the same payment. */
    mintFromBridge(input: ChainTxIntent & { paymentId: string; tokenSymbol: string; amountUnits: string; sourceChainId: number }) {
      const token = chains.registry.token(input.chainId, input.tokenSymbol);
      const action: ChainAction = { kind: 'bridgeMint', paymentId: input.paymentId, tokenAddress: token.address, amountUnits: input.amountUnits, sourceChainId: input.sourceChainId };
      return submit(input, action, { purpose: 'bridge mint', tokenAddress: token.address, amountUnits: input.amountUnits });
    },

    /**
     * One look at the intent's transaction: its result once mined `depth` deep on the canonical chain, else when to
     * look again (re-broadcasting it while the node does not have it).
     */
    async checkIntent(intentKey: string, depth: ChainDepth): Promise<ChainTxResult | { pollAfterMs: number }> {
      const row = await findChainTx({ knex, intentKey });
      if (!row) throw new Error(`no chain transaction stored for intent ${intentKey}`);
      const chain = chains.registry.chain(row.chain_id);
      const check = await chains.adapter(row.chain_id).checkTx(row.tx_hash, depth === 'finality' ? chain.finalityDepth : chain.confirmations);
      if (check.state === 'unmined') await broadcast(row);
      if (check.state !== 'mined') return { pollAfterMs: chain.pollIntervalMs };
      await markChainTxMined({ knex, intentKey, status: check.succeeded ? 'confirmed' : 'reverted', blockNumber: check.blockNumber });
      if (!check.succeeded) log.error({ intentKey, txHash: row.tx_hash }, 'chain transaction reverted');
      return { intentKey, txHash: row.tx_hash, blockNumber: check.blockNumber, succeeded: check.succeeded, confirmedAt: check.confirmedAt };
    },

    /** What the treasury holds of `tokenAddress` on `chainId` now (base units). */
    treasuryBalance(chainId: number, tokenAddress: string): Promise<bigint> {
      const adapter = chains.adapter(chainId);
      return adapter.balanceOf(adapter.treasuryAddress(), tokenAddress);
    },
  };
}

export type ChainTxService = ReturnType<typeof createChainTxService>;
