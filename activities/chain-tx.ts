import { heartbeat, sleep } from '@temporalio/activity';
import { Interface, Transaction, Wallet, keccak256, toUtf8Bytes, type TransactionRequest } from 'ethers';
import { depositFactoryAbi, devnetBridgeAbi, paymentSalt } from '../chains/contracts';
import { erc20Interface } from '../chains/evm';
import { isNativeToken } from '../chains/registry';
import {
  allocateNonce,
  findChainTx,
  insertChainTx,
  listUnminedBefore,
  markChainTxMined,
} from '../db/queries/chain-txs';
import type { ChainTxRow } from '../db/tables';
import type { ChainTxIntent, ChainTxResult } from '../workflows/types';
import type { ActivityDeps } from './deps';

const factoryInterface = new Interface(depositFactoryAbi);
const bridgeInterface = new Interface(devnetBridgeAbi);

/** Base units moved by a chain transaction, for the outbox record and the conservation checks. */
interface Movement {
  purpose: string;
  tokenAddress: string | null;
  amountUnits: string | null;
}

export type SweepRecipient = { kind: 'treasury' } | { kind: 'address'; address: string };

/** The id tying a bridge burn to its mint: one per payment, so neither can happen twice on chain. */
export const bridgeTransferId = (paymentId: string): string => keccak256(toUtf8Bytes(`payrail:bridge:${paymentId}`));

export function createChainTxActivities(deps: ActivityDeps) {
  const { knex, chains, treasuryPrivateKey, log } = deps;

  /**
   * Signs the intent's transaction once and stores it before it is broadcast; every later attempt re-broadcasts
   * those same bytes. A crash anywhere therefore yields at most one transaction per intent on chain.
   */
  async function submit(intent: ChainTxIntent, call: TransactionRequest & { to: string; data: string }, movement: Movement) {
    let row = await findChainTx({ knex, intentKey: intent.intentKey });
    if (!row) row = await signAndStore(intent, call, movement);
    await broadcast(row);
    deps.afterBroadcast?.(movement.purpose);
    return { intentKey: row.intent_key, txHash: row.tx_hash };
  }

  async function signAndStore(intent: ChainTxIntent, call: TransactionRequest & { to: string; data: string }, movement: Movement): Promise<ChainTxRow> {
    const wallet = chains.treasury(intent.chainId, treasuryPrivateKey);
    const provider = chains.provider(intent.chainId);
    const [gas, fees, chainPendingNonce] = await Promise.all([
      provider.estimateGas({ ...call, from: wallet.address }),
      provider.getFeeData(),
      provider.getTransactionCount(wallet.address, 'pending'),
    ]);
    try {
      return await knex.transaction(async (trx) => {
        const nonce = await allocateNonce({ trx, chainId: intent.chainId, signer: wallet.address, chainPendingNonce });
        const signed = await wallet.signTransaction({
          ...call,
          chainId: intent.chainId,
          nonce,
          type: 2,
          gasLimit: (gas * 13n) / 10n,
          maxFeePerGas: (fees.maxFeePerGas ?? fees.gasPrice ?? 1_000_000_000n) * 2n,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas ?? 1_000_000n,
        });
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
          raw_tx: signed,
          tx_hash: Transaction.from(signed).hash!,
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

  /** Sends stored raw bytes; "already known" and "nonce too low" mean the node has (or mined) them. */
  async function broadcast(row: ChainTxRow): Promise<void> {
    const provider = chains.provider(row.chain_id);
    for (const earlier of await listUnminedBefore({ knex, chainId: row.chain_id, signer: row.signer, nonce: row.nonce })) {
      await sendRaw(earlier);
    }
    await sendRaw(row);

    async function sendRaw(tx: ChainTxRow) {
      try {
        await provider.broadcastTransaction(tx.raw_tx);
      } catch (err) {
        if (await provider.getTransactionReceipt(tx.tx_hash)) return;
        const message = String((err as Error).message).toLowerCase();
        if (message.includes('already known') || message.includes('known transaction') || message.includes('nonce too low')) return;
        throw err;
      }
    }
  }

  const treasuryAddress = new Wallet(treasuryPrivateKey).address;

  return {
    /** Idempotent per intent key: moves funds out of a deposit address (deploying its forwarder if needed). */
    async sweepDeposit(input: ChainTxIntent & { tokenAddress: string; recipient: SweepRecipient; amountUnits: string; purpose: string }) {
      const to = input.recipient.kind === 'treasury' ? treasuryAddress : input.recipient.address;
      const factory = chains.registry.chain(input.chainId).depositFactory;
      const data = factoryInterface.encodeFunctionData('sweep', [paymentSalt(input.paymentId), input.tokenAddress, to, input.amountUnits]);
      return submit(input, { to: factory, data }, { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits });
    },

    /** Idempotent per intent key: an ERC-20 transfer from the treasury (payouts, refunds after a failed payout). */
    async transferFromTreasury(input: ChainTxIntent & { tokenAddress: string; to: string; amountUnits: string; purpose: string }) {
      if (isNativeToken(input.tokenAddress)) {
        // The chain's own coin (a refund of a native payin): a plain value transfer.
        const movement = { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits };
        return submit(input, { to: input.to, data: '0x', value: BigInt(input.amountUnits) }, movement);
      }
      const data = erc20Interface.encodeFunctionData('transfer', [input.to, input.amountUnits]);
      return submit(input, { to: input.tokenAddress, data }, { purpose: input.purpose, tokenAddress: input.tokenAddress, amountUnits: input.amountUnits });
    },

    /** Idempotent per intent key, and the bridge refuses a second burn of the same transfer id. */
    async burnForBridge(input: ChainTxIntent & { tokenSymbol: string; amountUnits: string; destinationChainId: number }) {
      const chain = chains.registry.chain(input.chainId);
      const token = chains.registry.token(input.chainId, input.tokenSymbol);
      if (!chain.bridge) throw new Error(`chain ${input.chainId} has no bridge configured`);
      const data = bridgeInterface.encodeFunctionData('burn', [
        bridgeTransferId(input.paymentId),
        token.address,
        input.amountUnits,
        input.destinationChainId,
        treasuryAddress,
      ]);
      return submit(input, { to: chain.bridge, data }, { purpose: 'bridge burn', tokenAddress: token.address, amountUnits: input.amountUnits });
    },

    /** Idempotent per intent key, and the bridge refuses a second mint of the same transfer id. */
    async mintFromBridge(input: ChainTxIntent & { tokenSymbol: string; amountUnits: string; sourceChainId: number }) {
      const chain = chains.registry.chain(input.chainId);
      const token = chains.registry.token(input.chainId, input.tokenSymbol);
      if (!chain.bridge) throw new Error(`chain ${input.chainId} has no bridge configured`);
      const data = bridgeInterface.encodeFunctionData('mint', [
        bridgeTransferId(input.paymentId),
        token.address,
        input.amountUnits,
        input.sourceChainId,
        treasuryAddress,
      ]);
      return submit(input, { to: chain.bridge, data }, { purpose: 'bridge mint', tokenAddress: token.address, amountUnits: input.amountUnits });
    },

    /**
     * Idempotent (re-broadcasts, then reads): waits until the intent's transaction is mined with the chain's
     * confirmations (or finality depth), re-broadcasting it while the node does not have it. Heartbeats.
     */
    async awaitChainTx(input: { intentKey: string; depth: 'confirmations' | 'finality' }): Promise<ChainTxResult> {
      const row = await findChainTx({ knex, intentKey: input.intentKey });
      if (!row) throw new Error(`no chain transaction stored for intent ${input.intentKey}`);
      const chain = chains.registry.chain(row.chain_id);
      const provider = chains.provider(row.chain_id);
      const required = input.depth === 'finality' ? chain.finalityDepth : chain.confirmations;
      for (;;) {
        heartbeat();
        const receipt = await provider.getTransactionReceipt(row.tx_hash);
        if (!receipt) {
          await broadcast(row);
        } else if ((await provider.getBlockNumber()) - receipt.blockNumber + 1 >= required) {
          const block = await provider.getBlock(receipt.blockNumber);
          if (block?.hash === receipt.blockHash) {
            const succeeded = receipt.status === 1;
            await markChainTxMined({ knex, intentKey: row.intent_key, status: succeeded ? 'confirmed' : 'reverted', blockNumber: receipt.blockNumber });
            if (!succeeded) log.error({ intentKey: row.intent_key, txHash: row.tx_hash }, 'chain transaction reverted');
            return {
              intentKey: row.intent_key,
              txHash: row.tx_hash,
              blockNumber: receipt.blockNumber,
              succeeded,
              confirmedAt: new Date(block.timestamp * 1000).toISOString(),
            };
          }
        }
        await sleep(chain.pollIntervalMs);
      }
    },
  };
}
