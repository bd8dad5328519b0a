/**
 * Payout reservations against a treasury's balance, in batches per treasury (services/batches.ts): a batch takes the
 * treasury's reservation lock once, reads the open reservations once, reserves for every payout that waited for it
 * in one insert, and commits once: the same round trips under the lock whatever the batch's size.
 */
import type { Knex } from 'knex';
import { insertTreasuryReservations, lockTreasuryReservations, readTreasuryReservations } from '../db/queries/treasury-reservations';
import { KeyedBatches, perDatabase, type BatchJob } from './batches';

export interface ReservationRequest {
  paymentId: string;
  chainId: number;
  tokenAddress: string;
  amountUnits: string;
  /** The treasury's balance as the payout read it. */
  balanceUnits: bigint;
}

type Job = BatchJob<ReservationRequest, boolean>;

const reservationBatches = perDatabase((knex: Knex) => new KeyedBatches((batch: Job[]) => reserveBatch(knex, batch)));

/**
 * Sets the payout aside in the treasury's next batch of reservations, unless other open reservations leave too
 * little of the balance. True when the payment holds a reservation.
 */
export function reserveInTurn(knex: Knex, request: ReservationRequest): Promise<boolean> {
  return reservationBatches(knex).submit(`${request.chainId}:${request.tokenAddress.toLowerCase()}`, request);
}

/** Never rejects: every job is settled by its batch. */
async function reserveBatch(knex: Knex, batch: Job[]): Promise<void> {
  const [{ item: first }] = batch as [Job];
  let answers: boolean[];
  try {
    answers = await knex.transaction(async (trx) => {
      await lockTreasuryReservations({ trx, chainId: first.chainId, tokenAddress: first.tokenAddress });
      const open = await readTreasuryReservations({ trx, chainId: first.chainId, tokenAddress: first.tokenAddress, paymentIds: batch.map((job) => job.item.paymentId) });
      const decided = decideReservations(open, batch.map((job) => job.item));
      await insertTreasuryReservations({ trx, reservations: decided.reserved });
      return decided.answers;
    });
  } catch (err) {
    // Nothing of the batch was committed.
    for (const job of batch) job.reject(err);
    return;
  }
  batch.forEach((job, i) => job.resolve(answers[i]!));
}

/**
 * In the order the payouts waited, each seeing the ones before: a payment that holds a reservation keeps it (a
 * retry, short as the treasury may be now); another is reserved when its balance, less every open reservation,
 * covers its amount.
 */
function decideReservations(open: { openUnits: bigint; heldBy: Set<string> }, requests: ReservationRequest[]): { answers: boolean[]; reserved: ReservationRequest[] } {
  let openUnits = open.openUnits;
  const heldBy = new Set(open.heldBy);
  const reserved: ReservationRequest[] = [];
  const answers = requests.map((request) => {
    if (heldBy.has(request.paymentId)) return true;
    const amountUnits = BigInt(request.amountUnits);
    if (request.balanceUnits - openUnits < amountUnits) return false;
    openUnits += amountUnits;
    heldBy.add(request.paymentId);
    reserved.push(request);
    return true;
  });
  return { answers, reserved };
}
