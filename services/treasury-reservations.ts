/**
 * Payout reservations against a treasury's balance, in batches per treasury (services/batches.ts): a batch takes the
 * treasury's reservation lock once, reserves for every payout that waited for it, and commits once.
 */
import type { Knex } from 'knex';
import { lockTreasuryReservations, reserveTreasury } from '../db/queries/treasury-reservations';
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
  const answers: boolean[] = [];
  try {
    await knex.transaction(async (trx) => {
      await lockTreasuryReservations({ trx, chainId: first.chainId, tokenAddress: first.tokenAddress });
      // In the order they waited, each seeing the ones before.
      for (const job of batch) answers.push(await reserveTreasury({ trx, ...job.item }));
    });
  } catch (err) {
    // Nothing of the batch was committed.
    for (const job of batch) job.reject(err);
    return;
  }
  batch.forEach((job, i) => job.resolve(answers[i]!));
}
