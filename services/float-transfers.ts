/**
 * An operator's manual transfer of float between treasuries, for routes no bridge carries (Tron, TON, Stellar
 * today): the operator moves the token by hand (through an exchange, another wallet) and books each leg as it
 * lands, `npm run float:record-transfer -- --chain <chainId> --tx <hash>`. The leg is read from the chain alone:
 * its transaction, at the chain's confirmation depth, and the transfers of configured tokens in it into the
 * treasury (refilled) or out of it (sent away), as the chain shows the transaction's transfers (the family's
 * `transactionTransfers`, or its scan of that block). Nothing of the amount is taken from the operator. Booked once
 * per transfer between the treasury and the operator.
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import type { DepositAccounts } from '../chains/family';
import { recordFloatTransfer } from './ledger';

/** A scan that names no deposit: every transfer of the block is returned as the chain shows it. */
const NO_DEPOSITS: DepositAccounts = { unrecorded: () => Promise.resolve([]), record: () => Promise.resolve(), find: () => Promise.resolve(new Map()) };

export interface FloatTransferLeg {
  chainId: number;
  symbol: string;
  direction: 'in' | 'out';
  amountUnits: string;
  txHash: string;
  logIndex: number;
}

/** The transaction is not (yet) at the chain's confirmation depth, or moved no configured token into or out of the treasury. */
export class FloatTransferNotFound extends Error {}

/** Reads the manual transfer's legs from the chain and books each once; returns what it booked (again: nothing new). */
export async function recordManualFloatTransfer(deps: { knex: Knex; chains: ChainAdapters }, input: { chainId: number; txHash: string }): Promise<FloatTransferLeg[]> {
  const { chains } = deps;
  const chain = chains.registry.chain(input.chainId);
  const adapter = chains.adapter(input.chainId);
  const check = await adapter.checkTx([input.txHash], chain.confirmations);
  if (check.state !== 'mined' || !check.succeeded) throw new FloatTransferNotFound(`transaction ${input.txHash} is not confirmed on chain ${input.chainId} (${check.state === 'mined' ? 'failed' : check.state})`);
  const treasury = adapter.treasuryAddress().toLowerCase();
  const transfers = adapter.transactionTransfers
    ? await adapter.transactionTransfers(check.txHash)
    : await adapter.scanPayins({ fromBlock: check.blockNumber, toBlock: check.blockNumber, accounts: NO_DEPOSITS, heartbeat: () => undefined });
  const legs: FloatTransferLeg[] = [];
  for (const t of transfers.filter((t) => t.txHash.toLowerCase() === check.txHash.toLowerCase())) {
    const token = chains.registry.tokenByAddress(input.chainId, t.tokenAddress);
    const direction = t.to.toLowerCase() === treasury ? 'in' : t.from.toLowerCase() === treasury ? 'out' : null;
    if (!token || !direction) continue;
    legs.push({ chainId: input.chainId, symbol: token.symbol, direction, amountUnits: t.amountUnits, txHash: t.txHash, logIndex: t.logIndex });
  }
  if (legs.length === 0) throw new FloatTransferNotFound(`transaction ${input.txHash} on chain ${input.chainId} moved no configured token into or out of the treasury ${adapter.treasuryAddress()}`);
  for (const leg of legs) {
    const token = chains.registry.token(input.chainId, leg.symbol);
    await recordFloatTransfer(deps, {
      ref: `float-transfer:${input.chainId}:${leg.txHash}:${leg.logIndex}`, chainId: input.chainId, tokenAddress: token.address, treasury: adapter.treasuryAddress(), direction: leg.direction, amountUnits: leg.amountUnits,
    });
  }
  return legs;
}
