import { loadConfig } from '../lib/config';
import { createKnex } from '../db/connection';
import { SecretBox } from '../lib/secrets';

/** `npm run migrate [-- down]`: applies every pending migration, or rolls back the last batch. */
async function main(): Promise<void> {
  const config = loadConfig();
  const knex = createKnex(config.databaseUrl, { max: 1 }, { secrets: config.secretsKey ? new SecretBox(config.secretsKey) : undefined });
  try {
    if (process.argv[2] === 'down') {
      const [batch, names] = (await knex.migrate.rollback()) as [number, string[]];
      console.log(`rolled back batch ${batch}: ${names.join(', ') || 'nothing'}`);
    } else {
      const [batch, names] = (await knex.migrate.latest()) as [number, string[]];
      console.log(names.length ? `applied batch ${batch}: ${names.join(', ')}` : 'already up to date');
    }
  } finally {
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
