/**
 * The sign-once outbox of chain transactions. An intent's transaction is signed once and stored before it is
 * broadcast; every later attempt re-broadcasts those same bytes. A crash anywhere therefore yields at most one
 * transaction per intent on chain.
 */
import { Contract, Wallet } from 'ethers';
import type { Knex } from 'knex';
import type { EvmChains } from '../chains/evm/clients';
import { erc20Abi } from '../chains/evm/contracts';
import {
  broadcastRaw,
  checkTx,
  estimateCall,
  signCall,
  sweepCall,
  transferCall,
  type EvmCall,
} from '../chains/evm/transactions';
import type { ChainDepth, ChainTxIntent, ChainTxResult } from '../domain/chain-txs';
import { isNativeToken } from '../domain/payment';
import { allocateNonce, findChainTx, insertChainTx, listUnminedBefore, markChainTxMined } from '../db/queries/chain-txs';
import type { ChainTxRow } from '../db/tables';
import type { Logger } from '../lib/logger';

export interface ChainTxServiceDeps {
  knex: Knex;
  chains: EvmChains;
  /** Hot wallet that owns the deposit factory and holds payout liquidity on every chain. */
  treasuryPrivateKey: string;
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
  const { knex, chains, treasuryPrivateKey, log } = deps;
  const treasuryAddress = new Wallet(treasuryPrivateKey).address;

  async function submit(intent: ChainTxIntent, call: EvmCall, movement: Movement): Promise<{ intentKey: string; txHash: string }> {
    const row = (await findChainTx({ knex, intentKey: intent.intentKey })) ?? (await signAndStore(intent, call, movement));
    await broadcast(row);
    deps.afterBroadcast?.(movement.purpose);
    return { intentKey: row.intent_key, txHash: row.tx_hash };
  }

  async function signAndStore(intent: ChainTxIntent, call: EvmCall, movement: Movement): Promise<ChainTxRow> {
    const wallet = chains.treasury(intent.chainId, treasuryPrivateKey);
    const { pendingNonce, ...fees } = await estimateCall(chains.provider(intent.chainId), wallet.address, call);
    try {
      return await knex.transaction(async (trx) => {
        const nonce = await allocateNonce({ trx, chainId: intent.chainId, signer: wallet.address, chainPendingNonce: pendingNonce });
        const signed = await signCall(wallet, intent.chainId, call, { nonce, ...fees });
        const tx = {
          intent_key: intent.intentKey,
          payment_id: intent.paymentId,
          purpose: movement.purpose,
          chain_id: intent.chainId,
          signer: wallet.address,
          nonce: String(nonce),
          to_address: call.to,
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
    const provider = chains.provider(row.chain_id);
    for (const earlier of await listUnminedBefore({ knex, chainId: row.chain_id, signer: row.signer, nonce: row.nonce })) {
      await broadcastRaw(provider, earlier.raw_tx, earlier.tx_hash);
    }
    await broadcastRaw(provider, row.raw_tx, row.tx_hash);
  }

  return {
    treasuryAddress,

    /** Moves funds out of a deposit address (deploying its forwarder if needed). Idempotent per intent key. */
    sweepDeposit(input: ChainTxIntent & { paymentId: string; tokenAddress: string; recipient: SweepRecipient; amountUnits: string; purpose: string }) {
      const to = input.recipient.kind === 'treasury' ? treasuryAddress : input.recipient.address;
      const call = sweepCall(chains.registry.chain(input.chainId), input.paymentId, input.tokenAddress, to, input.amountUnits);
      return submit(input, call, { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits });
    },

    /** A transfer from the treasury (payouts, refunds from the treasury). Idempotent per intent key. */
    transferFromTreasury(input: ChainTxIntent & { tokenAddress: string; to: string; amountUnits: string; purpose: string }) {
      return submit(input, transferCall(input.tokenAddress, input.to, input.amountUnits), { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits });
    },

    /** Any other call from the treasury (bridge approvals, burns, sends, mints). Idempotent per intent key. */
    submitCall(input: ChainTxIntent & { call: EvmCall; purpose: string; tokenAddress: string | null; amountUnits: string | null }) {
      return submit(input, input.call, { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits });
    },

    /**
     * One look at the intent's transaction: its result once mined `depth` deep on the canonical chain, else when to
     * look again (re-broadcasting it while the node does not have it).
     */
    async checkIntent(intentKey: string, depth: ChainDepth): Promise<ChainTxResult | { pollAfterMs: number }> {
      const row = await findChainTx({ knex, intentKey });
      if (!row) throw new Error(`no chain transaction stored for intent ${intentKey}`);
      const chain = chains.registry.chain(row.chain_id);
      const check = await checkTx(chains.provider(row.chain_id), row.tx_hash, depth === 'finality' ? chain.finalityDepth : chain.confirmations);
      if (check.state === 'unmined') await broadcast(row);
      if (check.state !== 'mined') return { pollAfterMs: chain.pollIntervalMs };
      await markChainTxMined({ knex, intentKey, status: check.succeeded ? 'confirmed' : 'reverted', blockNumber: check.blockNumber });
      if (!check.succeeded) log.error({ intentKey, txHash: row.tx_hash }, 'chain transaction reverted');
      return { intentKey, txHash: row.tx_hash, blockNumber: check.blockNumber, succeeded: check.succeeded, confirmedAt: check.confirmedAt };
    },

    /** What the treasury holds of `tokenAddress` on `chainId` now (base units). */
    async treasuryBalance(chainId: number, tokenAddress: string): Promise<bigint> {
      const provider = chains.provider(chainId);
      if (isNativeToken(tokenAddress)) return provider.getBalance(treasuryAddress);
      return (await new Contract(tokenAddress, erc20Abi, provider).getFunction('balanceOf')(treasuryAddress)) as bigint;
    },
  };
}

export type ChainTxService = ReturnType<typeof createChainTxService>;
