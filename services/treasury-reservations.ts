/**
 * Reservations against a treasury's balance (of a payout, or of a merchant refund paid from the treasury), in batches
 * per treasury (services/batches.ts): a batch takes the treasury's reservation lock once, reads the open reservations
 * and then the treasury's balance once, reserves for every transfer that waited for it in one insert, and commits once:
 * the same round trips under the lock whatever the batch's size.
 */
import type { Knex } from 'knex';
import { insertTreasuryReservations, lockTreasuryReservations, readTreasuryReservations } from '../db/queries/treasury-reservations';
import { intentKeys } from '../domain/chain-txs';
import { KeyedBatches, perDatabase, type BatchJob } from './batches';

export interface ReservationRequest {
  /** The transfer the tokens are set aside for, released once it is mined (`reservesTreasury`). */
  intentKey: string;
  paymentId: string;
  chainId: number;
  tokenAddress: string;
  amountUnits: string;
  /** Reads the treasury's balance of the token on its chain now (the batch calls one request's, once). */
  readBalance: () => Promise<bigint>;
}

/** Whether the transfer holds a reservation, and the treasury's balance its batch read. */
export interface Reservation {
  reserved: boolean;
  balanceUnits: bigint;
}

type Job = BatchJob<ReservationRequest, Reservation>;

const reservationBatches = perDatabase((knex: Knex) => new KeyedBatches((batch: Job[]) => reserveBatch(knex, batch)));

/** The treasury cannot cover the transfer beside what other transfers reserved: it waits for an operator to fund it. */
export class TreasuryShort extends Error {
  constructor(intentKey: string, balanceUnits: bigint, amountUnits: string) {
    super(`the treasury cannot cover ${intentKey}: it holds ${balanceUnits}, less what other transfers reserved, short of ${amountUnits}`);
    this.name = 'TreasuryShort';
  }
}

/** The transfers from a treasury that reserve their amount first: payouts and merchant refunds. */
export function reservesTreasury(intentKey: string): boolean {
  return intentKey.startsWith(intentKeys.payout('')) || intentKey.startsWith(intentKeys.merchantRefund(''));
}

/**
 * Sets the transfer's amount aside in the treasury's next batch of reservations, unless other open reservations
 * leave too little of the balance.
 */
export function reserveInTurn(knex: Knex, request: ReservationRequest): Promise<Reservation> {
  return reservationBatches(knex).submit(`${request.chainId}:${request.tokenAddress.toLowerCase()}`, request);
}

/**
 * Never rejects: every job is settled by its batch. The balance is read after the open reservations: a payout
 * released in what they show was mined before, so the balance shows it spent. (Read before, the balance could still
 * hold the tokens of a payout released meanwhile, and count them twice.)
 */
async function reserveBatch(knex: Knex, batch: Job[]): Promise<void> {
  const [{ item: first }] = batch as [Job];
  let answers: Reservation[];
  try {
    answers = await knex.transaction(async (trx) => {
      await lockTreasuryReservations({ trx, chainId: first.chainId, tokenAddress: first.tokenAddress });
      const open = await readTreasuryReservations({ trx, chainId: first.chainId, tokenAddress: first.tokenAddress, intentKeys: batch.map((job) => job.item.intentKey) });
      const balanceUnits = await first.readBalance();
      const decided = decideReservations(open, balanceUnits, batch.map((job) => job.item));
      await insertTreasuryReservations({ trx, reservations: decided.reserved });
      return decided.answers.map((reserved) => ({ reserved, balanceUnits }));
    });
  } catch (err) {
    // Nothing of the batch was committed.
    for (const job of batch) job.reject(err);
    return;
  }
  batch.forEach((job, i) => job.resolve(answers[i]!));
}

/**
 * In the order the transfers waited, each seeing the ones before: one that holds a reservation keeps it (a retry,
 * short as the treasury may be now); another is reserved when the treasury's balance, less every open reservation,
 * covers its amount.
 */
function decideReservations(open: { openUnits: bigint; heldBy: Set<string> }, balanceUnits: bigint, requests: ReservationRequest[]): { answers: boolean[]; reserved: ReservationRequest[] } {
  let openUnits = open.openUnits;
  const heldBy = new Set(open.heldBy);
  const reserved: ReservationRequest[] = [];
  const answers = requests.map((request) => {
    if (heldBy.has(request.intentKey)) return true;
    const amountUnits = BigInt(request.amountUnits);
    if (balanceUnits - openUnits < amountUnits) return false;
    openUnits += amountUnits;
    heldBy.add(request.intentKey);
    reserved.push(request);
    return true;
  });
  return { answers, reserved };
}
