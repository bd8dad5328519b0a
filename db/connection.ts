import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// numeric(78,0) base units and int8 values stay strings; they are turned into bigint where used, never into floats.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

/**
 * A one-row FROM item that makes the statement's own transaction commit without waiting for its WAL flush
 * (`synchronous_commit = off`, for this transaction only). For writes whose loss in a database crash is harmless
 * (a counter a few events short, a marker the reconciler sets again): on the slow fsync of a small box, and on a hot
 * row whose lock is held until the flush, the wait is most of their cost.
 */
export const RELAXED_COMMIT = `(select set_config('synchronous_commit', 'off', true)) as relaxed_commit`;

export const migrationsDirectory = path.join(__dirname, 'migrations');

/** Seals and opens secrets at rest (lib/secrets' SecretBox); migrations that seal existing rows need it. */
export interface SecretSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createKnex(databaseUrl: string, pool: { min?: number; max?: number } = {}, options: { secrets?: SecretSealer } = {}): Knex {
  const knex = knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
  });
  return options.secrets ? knex.withUserParams({ secrets: options.secrets }) : knex;
}

export async function migrateLatest(knex: Knex): Promise<void> {
  await knex.migrate.latest();
}
