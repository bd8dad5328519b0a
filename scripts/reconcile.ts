import { parseArgs } from 'node:util';
import { createKnex } from '../db/connection';
import { loadConfig } from '../lib/config';
import { loadChains } from '../services/chains';
import { reconcileLedger } from '../services/ledger';
import { describeConservation } from '../services/conservation-report';
import { describeFloats } from '../services/float-report';
import { describeReconciliation } from '../services/reconcile-report';

/**
 * `npm run reconcile`: compares what the ledger says every account we control holds (each deposit address with
 * entries, Stellar's receiving account, every treasury), per asset, with what the chain says it holds; prints one
 * line per account and asset, and each bridge transfer in transit past its protocol's normal time; exits non-zero on
 * any difference of a settled account or any stuck bridge. Then the conservation identity per chain and asset and per
 * token across chains (services/conservation-report.ts; a difference fails it too), each treasury's float against its
 * marks, each token's totals across chains, the rebalances bridging and the rebalance needs an operator meets
 * (services/float-report.ts).
 * Reads DATABASE_URL and PAYRAIL_CHAINS_FILE like the
 * worker (no key: treasuries are known by the addresses the ledger names). `-- --app <appId>` compares the deposit
 * addresses of one merchant app's payments only.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { app: { type: 'string' } } });
  const config = loadConfig();
  const knex = createKnex(config.databaseUrl, { max: 2 });
  const chains = loadChains(config, 'deposits');
  try {
    const result = await reconcileLedger({ knex, chains }, { appId: values.app });
    for (const line of describeReconciliation(chains.registry, result)) console.log(line);
    let failures = result.failures;
    if (values.app === undefined) {
      const conservation = await describeConservation({ knex, registry: chains.registry }, result);
      for (const line of [...conservation.lines, ...(await describeFloats({ knex, chains }, result))]) console.log(line);
      failures += conservation.failures;
    }
    if (failures > 0) process.exitCode = 1;
  } finally {
    chains.destroy();
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});
