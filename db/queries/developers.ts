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
 * Spends one attempt on the login's code (`id`, for `email`), if it is live (unused, unexpired, attempts left), and
 * returns it for the guess to be compared with. Only the login that asked for a code knows its id, so guesses at
 * other logins' codes never spend the attempts of a developer's own. The row lock of the update serialises
 * concurrent guesses, so a code is never compared more than `maxAttempts` times.
 */
export async function claimLoginCodeAttempt(options: { knex: Knex; id: string; email: string; maxAttempts: number }): Promise<LoginCodeRow | undefined> {
  const { knex, id, email, maxAttempts } = options;
  const [row] = await knex<LoginCodeRow>('login_codes')
    .where({ id, email })
    .whereNull('consumed_at')
    .where('expires_at', '>', knex.fn.now())
    .where('attempts', '<', maxAttempts)
    .increment('attempts', 1)
    .returning('*');
  return row;
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
