import { depositVariablesOf } from '../services/chains';

/**
 * `npm run deposit-keys`: the public deposit keys the API is given, computed from the worker's deposit seeds in this
 * environment (Tron: `TRON_DEPOSIT_XPUB` from `TRON_DEPOSIT_SEED`). One `NAME=value` line each; nothing printed is a
 * secret. Run it where the seeds are (the worker's environment), then give the API these lines and no seed.
 */
for (const [name, value] of Object.entries(depositVariablesOf(process.env))) console.log(`${name}=${value}`);
