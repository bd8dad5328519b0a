import type { Knex } from 'knex';
import type { TreasuryReservationRow } from '../tables';

/**
 * Takes the treasury's reservation lock until the transaction ends: an advisory lock per chain and token makes
 * concurrent reservations (of every process) see each other.
 */
export async function lockTreasuryReservations(options: { trx: Knex.Transaction; chainId: number; tokenAddress: string }): Promise<void> {
  await options.trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`treasury:${options.chainId}:${options.tokenAddress.toLowerCase()}`]);
}

/**
 * Under the treasury's lock (`lockTreasuryReservations`): sets `amountUnits` of the treasury's `balanceUnits` aside for
 * the payment's payout, unless other open reservations leave too little. One reservation per payment (a retry finds
 * its own). True when the payment holds a reservation.
 */
export async function reserveTreasury(options: {
  trx: Knex.Transaction;
  paymentId: string;
  chainId: number;
  tokenAddress: string;
  amountUnits: string;
  balanceUnits: bigint;
}): Promise<boolean> {
  const { trx, paymentId, chainId, amountUnits } = options;
  const tokenAddress = options.tokenAddress.toLowerCase();
  // One statement: its snapshot is taken after the lock, so it sees every reservation made before.
  const inserted = await trx.raw<{ rows: unknown[] }>(
    `insert into treasury_reservations (payment_id, chain_id, token_address, amount_units)
     select ?::uuid, ?::integer, ?::text, ?::numeric
     where ?::numeric - (select coalesce(sum(amount_units), 0) from treasury_reservations where chain_id = ? and token_address = ? and released_at is null) >= ?::numeric
     on conflict (payment_id) do nothing
     returning payment_id`,
    [paymentId, chainId, tokenAddress, amountUnits, options.balanceUnits.toString(), chainId, tokenAddress, amountUnits],
  );
  // Not inserted: short, unless the payment holds its reservation already (a retry).
  return inserted.rows.length > 0 || (await trx<TreasuryReservationRow>('treasury_reservations').where({ payment_id: paymentId }).first()) !== undefined;
}

/** The payout is mined: the chain's balance shows it now, so the reservation no longer counts. Idempotent. */
export async function releaseTreasuryReservation(options: { knex: Knex; paymentId: string }): Promise<void> {
  await options.knex<TreasuryReservationRow>('treasury_reservations').where({ payment_id: options.paymentId }).whereNull('released_at').update({ released_at: options.knex.fn.now() as unknown as Date });
}

/** What open payout reservations set aside per chain and token (lowercased address), in base units. */
export async function sumOpenReservations(options: { knex: Knex }): Promise<Array<{ chainId: number; tokenAddress: string; units: bigint }>> {
  const rows = await options
    .knex<TreasuryReservationRow>('treasury_reservations')
    .whereNull('released_at')
    .groupBy('chain_id', 'token_address')
    .select('chain_id', 'token_address')
    .sum<Array<{ chain_id: number; token_address: string; sum: string }>>('amount_units as sum');
  return rows.map((r) => ({ chainId: r.chain_id, tokenAddress: r.token_address, units: BigInt(r.sum) }));
}
