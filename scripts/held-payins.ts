import { loadConfig } from '../lib/config';
import { createKnex } from '../db/connection';
import { listHeldPayins } from '../db/queries/held-payins';

/**
 * `npm run held-payins [-- <chainId>]`: payins into a shared receiving account (Stellar) that named no payment (no
 * memo, or an unknown one), held for the operator to return or credit by hand. One JSON line each.
 */
async function main(): Promise<void> {
  const knex = createKnex(loadConfig().databaseUrl, { max: 1 });
  try {
    const chainId = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
    for (const row of await listHeldPayins({ knex, chainId })) console.log(JSON.stringify(row));
  } finally {
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
