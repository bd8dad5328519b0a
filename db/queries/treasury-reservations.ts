import type { Knex } from 'knex';
import type { TreasuryReservationRow } from '../tables';

/**
 * Sets `amountUnits` of the treasury's `balanceUnits` aside for the payment's payout, unless other open reservations
 * leave too little. One reservation per payment (a retry finds its own); an advisory lock per chain and token
 * makes concurrent reservations see each other. True when the payment holds a reservation.
 */
export async function reserveTreasury(options: {
  knex: Knex;
  paymentId: string;
  chainId: number;
  tokenAddress: string;
  amountUnits: string;
  balanceUnits: bigint;
}): Promise<boolean> {
  const { knex, paymentId, chainId } = options;
  const tokenAddress = options.tokenAddress.toLowerCase();
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`treasury:${chainId}:${tokenAddress}`]);
    if (await trx<TreasuryReservationRow>('treasury_reservations').where({ payment_id: paymentId }).first()) return true;
    const open = await trx<TreasuryReservationRow>('treasury_reservations')
      .where({ chain_id: chainId, token_address: tokenAddress })
      .whereNull('released_at')
      .sum<{ sum: string | null }[]>('amount_units as sum');
    if (options.balanceUnits - BigInt(open[0]?.sum ?? '0') < BigInt(options.amountUnits)) return false;
    await trx<TreasuryReservationRow>('treasury_reservations').insert({ payment_id: paymentId, chain_id: chainId, token_address: tokenAddress, amount_units: options.amountUnits });
    return true;
  });
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
