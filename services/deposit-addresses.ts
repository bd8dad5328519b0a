/**
 * Deposit addresses of new payments, made where the keys allow. A `derived` family's address follows from the payment
 * id and public data, so any process computes it. A `pooled` family's address needs the deposit seed, which only the
 * worker holds: the worker keeps a pool of ready payment ids with their addresses (`refillDepositAddressPool`), and a
 * create claims one (`newDepositAddress`), so the API never holds a key that can move a deposit's funds.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { DomainError } from '../domain/errors';
import { addPooledDepositAddresses, claimPooledDepositAddress, countPooledDepositAddresses } from '../db/queries/deposit-address-pool';

/** A new payment's id and deposit address. */
export interface NewDepositAddress {
  paymentId: string;
  address: string;
  /** Gives a pooled address back when no payment took it (its orderId had a payment already). */
  release(): Promise<void>;
}

/** How long a create waits for the worker to refill an empty pool before it answers 503. */
const POOL_WAIT_MS = 3_000;
const POOL_RETRY_MS = 100;
/** What a 503 asks the client to wait: a refill takes one round of the pool workflow. */
const POOL_RETRY_AFTER_SECONDS = 5;

/** Refused while a pooled chain has no address ready: the worker is away or behind. The create may be sent again. */
export class DepositAddressUnavailable extends DomainError {
  override readonly retryAfterSeconds = POOL_RETRY_AFTER_SECONDS;

  constructor(chainId: number) {
    super('deposit_address_unavailable', `no deposit address is ready on chain ${chainId} yet; retry in ${POOL_RETRY_AFTER_SECONDS} s`);
  }
}

/**
 * An id and deposit address for a new payment on `chainId`: derived from a fresh id, or claimed from the chain's pool
 * (inside the caller's transaction when `knex` is one: a rollback gives it back). An empty pool is waited on briefly,
 * then refused with `DepositAddressUnavailable`.
 */
export async function newDepositAddress(deps: { knex: Knex; chains: ChainAdapters }, chainId: number): Promise<NewDepositAddress> {
  const { knex, chains } = deps;
  if (chains.family(chainId).depositAddresses === 'derived') {
    const paymentId = randomUUID();
    return { paymentId, address: chains.depositAddressFor(chainId, paymentId), release: () => Promise.resolve() };
  }
  const deadline = Date.now() + POOL_WAIT_MS;
  for (;;) {
    const claimed = await claimPooledDepositAddress({ knex, chainId });
    if (claimed) return { ...claimed, release: () => addPooledDepositAddresses({ knex, chainId, addresses: [claimed] }) };
    if (Date.now() >= deadline) throw new DepositAddressUnavailable(chainId);
    await delay(POOL_RETRY_MS);
  }
}

/** How many ready addresses a pooled chain keeps: refilled to `size` once fewer than `lowWater` are left. */
export interface DepositAddressPoolSettings {
  size: number;
  lowWater: number;
}

/**
 * Worker: tops the chain's pool up to `size` once it holds fewer than `lowWater` addresses, deriving each address from
 * a fresh payment id with the deposit seed. Returns how many it added. Idempotent in effect: a repeat finds the pool
 * full (one pool workflow per chain runs it, so no two refills race).
 */
export async function refillDepositAddressPool(
  deps: { knex: Knex; chains: ChainAdapters; depositAddressPool: DepositAddressPoolSettings },
  chainId: number,
): Promise<{ added: number }> {
  const { knex, chains } = deps;
  const { size, lowWater } = deps.depositAddressPool;
  const held = await countPooledDepositAddresses({ knex, chainId });
  if (held >= lowWater) return { added: 0 };
  const adapter = chains.adapter(chainId);
  const addresses = Array.from({ length: size - held }, () => {
    const paymentId = randomUUID();
    return { paymentId, address: adapter.depositAddress(paymentId) };
  });
  await addPooledDepositAddresses({ knex, chainId, addresses });
  return { added: addresses.length };
}

