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
 * Spends one attempt on the newest code of `email` and returns it, or nothing when that code is used, expired
 * or out of attempts. Only the newest code counts, so requesting a new code invalidates every older one. The
 * row lock of the update serialises concurrent guesses, so a code is never compared more than `maxAttempts`
 * times.
 */
export async function claimLoginCodeAttempt(options: { knex: Knex; email: string; maxAttempts: number }): Promise<LoginCodeRow | undefined> {
  const { knex, email, maxAttempts } = options;
  const [row] = await knex<LoginCodeRow>('login_codes')
    .where('id', knex('login_codes').select('id').where({ email }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(1))
    .whereNull('consumed_at')
    .where('expires_at', '>', knex.fn.now())
    .where('attempts', '<', maxAttempts)
    .increment('attempts', 1)
    .returning('*');
  return row;
}

/** Marks the code used; false when a concurrent request used it first. */
export async function consumeLoginCode(options: { knex: Knex; id: string }): Promise<boolean> {
  const updated = await options
    .knex<LoginCodeRow>('login_codes')
    .where({ id: options.id })
    .whereNull('consumed_at')
    .update({ consumed_at: options.knex.fn.now() as unknown as Date });
  return updated === 1;
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
