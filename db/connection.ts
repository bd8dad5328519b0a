import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// numeric(78,0) base units and int8 values stay strings; they are turned into bigint where used, never into floats.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export const migrationsDirectory = path.join(__dirname, 'migrations');

export function createKnex(databaseUrl: string, pool: { min?: number; max?: number } = {}): Knex {
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
  });
}

export async function migrateLatest(knex: Knex): Promise<void> {
  await knex.migrate.latest();
}
