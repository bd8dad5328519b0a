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
 * Under the treasury's lock (`lockTreasuryReservations`): what the treasury's open reservations set aside, and which
 * of `intentKeys` hold a reservation already (a retry's, open or released). One statement, its snapshot taken after
 * the lock, so it sees every reservation made before.
 */
export async function readTreasuryReservations(options: {
  trx: Knex.Transaction;
  chainId: number;
  tokenAddress: string;
  intentKeys: string[];
}): Promise<{ openUnits: bigint; heldBy: Set<string> }> {
  const { trx, chainId, intentKeys } = options;
  const tokenAddress = options.tokenAddress.toLowerCase();
  const { rows } = await trx.raw<{ rows: Array<{ open_units: string; held_by: string[] }> }>(
    `select (select coalesce(sum(amount_units), 0) from treasury_reservations where chain_id = ? and token_address = ? and released_at is null)::text as open_units,
            array(select intent_key from treasury_reservations where intent_key = any(?::text[])) as held_by`,
    [chainId, tokenAddress, intentKeys],
  );
  const [row] = rows as [{ open_units: string; held_by: string[] }];
  return { openUnits: BigInt(row.open_units), heldBy: new Set(row.held_by) };
}

/** Under the treasury's lock: sets each transfer's amount aside, one reservation per intent. */
export async function insertTreasuryReservations(options: {
  trx: Knex.Transaction;
  reservations: Array<{ intentKey: string; paymentId: string; chainId: number; tokenAddress: string; amountUnits: string }>;
}): Promise<void> {
  if (options.reservations.length === 0) return;
  await options
    .trx<TreasuryReservationRow>('treasury_reservations')
    .insert(options.reservations.map((r) => ({ intent_key: r.intentKey, payment_id: r.paymentId, chain_id: r.chainId, token_address: r.tokenAddress.toLowerCase(), amount_units: r.amountUnits })))
    .onConflict('intent_key')
    .ignore();
}

/** The transfer is mined: the chain's balance shows it now, so its reservation (if it has one) no longer counts. Idempotent. */
export async function releaseTreasuryReservation(options: { knex: Knex; intentKey: string }): Promise<void> {
  await options.knex<TreasuryReservationRow>('treasury_reservations').where({ intent_key: options.intentKey }).whereNull('released_at').update({ released_at: options.knex.fn.now() as unknown as Date });
}

/** What open reservations set aside per chain and token (lowercased address), in base units. */
export async function sumOpenReservations(options: { knex: Knex }): Promise<Array<{ chainId: number; tokenAddress: string; units: bigint }>> {
  const rows = await options
    .knex<TreasuryReservationRow>('treasury_reservations')
    .whereNull('released_at')
    .groupBy('chain_id', 'token_address')
    .select('chain_id', 'token_address')
    .sum<Array<{ chain_id: number; token_address: string; sum: string }>>('amount_units as sum');
  return rows.map((r) => ({ chainId: r.chain_id, tokenAddress: r.token_address, units: BigInt(r.sum) }));
}
