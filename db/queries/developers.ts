import type { Knex } from 'knex';
import type { DeveloperRow, LoginCodeRow } from '../tables';

/** Stores a login code (hashed) that expires `ttlSeconds` from now on the database clock. */
export async function insertLoginCode(options: {
  knex: Knex;
  code: Pick<LoginCodeRow, 'id' | 'email' | 'code_hash'>;
  ttlSeconds: number;
}): Promise<void> {
  const { knex, code, ttlSeconds } = options;
  await knex<LoginCodeRow>('login_codes').insert({
    ...code,
    expires_at: knex.raw('now() + make_interval(secs => ?)', [ttlSeconds]) as unknown as Date,
  });
}

/**
 * Spends one attempt on every live code of `email` (unused, unexpired, attempts left) and returns them: a guess is
 * compared with each. A new code does not void older ones, so asking for codes can't lock a developer out; the
 * number of live codes is bounded by the per-address mail limit, and guesses by the per-address failure limit.
 * The row locks of the update serialise concurrent guesses, so a code is never compared more than `maxAttempts`
 * times.
 */
export async function claimLoginCodeAttempts(options: { knex: Knex; email: string; maxAttempts: number }): Promise<LoginCodeRow[]> {
  const { knex, email, maxAttempts } = options;
  return knex<LoginCodeRow>('login_codes')
    .where({ email })
    .whereNull('consumed_at')
    .where('expires_at', '>', knex.fn.now())
    .where('attempts', '<', maxAttempts)
    .increment('attempts', 1)
    .returning('*');
}

/**
 * Uses the code `id` and, with it, every other live code of the address (a login ends them all); false when a
 * concurrent request used it first.
 */
export async function consumeLoginCodes(options: { knex: Knex; email: string; id: string }): Promise<boolean> {
  const { knex, email, id } = options;
  return knex.transaction(async (trx) => {
    const used = await trx<LoginCodeRow>('login_codes').where({ id }).whereNull('consumed_at').update({ consumed_at: trx.fn.now() as unknown as Date });
    if (used !== 1) return false;
    await trx<LoginCodeRow>('login_codes').where({ email }).whereNull('consumed_at').update({ consumed_at: trx.fn.now() as unknown as Date });
    return true;
  });
}

/** Drops codes that expired over a day ago (kept that long for support questions). */
export async function deleteStaleLoginCodes(options: { knex: Knex }): Promise<number> {
  return options.knex('login_codes').where('expires_at', '<', options.knex.raw(`now() - interval '1 day'`)).delete();
}

/** The developer with this e-mail address, created on the first verified login. */
export async function upsertDeveloperByEmail(options: { knex: Knex; id: string; email: string }): Promise<DeveloperRow> {
  const [row] = await options
    .knex<DeveloperRow>('developers')
    .insert({ id: options.id, email: options.email })
    .onConflict('email')
    // A no-op update, so the existing row is returned.
    .merge({ email: options.email })
    .returning('*');
  return row!;
}
