import type { Knex } from 'knex';

export interface PooledDepositAddress {
  paymentId: string;
  address: string;
}

/**
 * Takes one of the chain's pooled addresses (deletes its row) and returns it, or null when the pool has none free.
 * Concurrent claims skip rows another claim has locked, so each row goes to exactly one payment.
 */
export async function claimPooledDepositAddress(options: { knex: Knex; chainId: number }): Promise<PooledDepositAddress | null> {
  const { rows } = await options.knex.raw<{ rows: Array<{ payment_id: string; address: string }> }>(
    `delete from deposit_address_pool
     where payment_id = (select payment_id from deposit_address_pool where chain_id = ? limit 1 for update skip locked)
     returning payment_id, address`,
    [options.chainId],
  );
  const row = rows[0];
  return row ? { paymentId: row.payment_id, address: row.address } : null;
}

/** Puts addresses (new ones, or a claimed one no payment took) into the chain's pool. */
export async function addPooledDepositAddresses(options: { knex: Knex; chainId: number; addresses: PooledDepositAddress[] }): Promise<void> {
  const { knex, chainId, addresses } = options;
  if (addresses.length === 0) return;
  await knex.batchInsert(
    'deposit_address_pool',
    addresses.map((a) => ({ chain_id: chainId, payment_id: a.paymentId, address: a.address })),
    1000,
  );
}

/** How many addresses the chain's pool holds. */
export async function countPooledDepositAddresses(options: { knex: Knex; chainId: number }): Promise<number> {
  const [row] = await options.knex('deposit_address_pool').where({ chain_id: options.chainId }).count<Array<{ count: string }>>({ count: '*' });
  return Number(row?.count ?? 0);
}
