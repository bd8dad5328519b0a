import type { Knex } from 'knex';
import { migrationsDirectory } from './connection';

/** For the knex CLI (`npx knex --knexfile db/knexfile.ts migrate:…`); the app itself uses `createKnex`. */
const config: Knex.Config = {
  client: 'pg',
  connection: process.env.DATABASE_URL,
  migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
};

export default config;
