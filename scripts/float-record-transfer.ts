import { parseArgs } from 'node:util';
import { formatUnits } from 'ethers';
import { createKnex } from '../db/connection';
import { loadConfig } from '../lib/config';
import { loadChains } from '../services/chains';
import { recordManualFloatTransfer } from '../services/float-transfers';

const USAGE = 'usage: npm run float:record-transfer -- --chain <chainId> --tx <hash>';

/**
 * `npm run float:record-transfer`: books an operator's manual transfer of float (a route no bridge carries) once it
 * landed: each transfer of a configured token in the transaction into the chain's treasury (operator → treasury) or
 * out of it (treasury → operator), read from the chain at its confirmation depth; amounts are the chain's, never
 * given. Run once per leg (the transaction out of one treasury, the one into the other). Reads DATABASE_URL,
 * PAYRAIL_CHAINS_FILE and the worker's keys (the treasury's address).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { chain: { type: 'string' }, tx: { type: 'string' } } });
  if (!values.chain || !values.tx) throw new Error(USAGE);
  const config = loadConfig();
  const chains = loadChains(config, 'worker');
  const knex = createKnex(config.databaseUrl, { max: 2 });
  try {
    const chainId = Number(values.chain);
    for (const leg of await recordManualFloatTransfer({ knex, chains }, { chainId, txHash: values.tx })) {
      const { decimals } = chains.registry.token(chainId, leg.symbol);
      console.log(`booked: ${formatUnits(BigInt(leg.amountUnits), decimals)} ${leg.symbol} ${leg.direction === 'in' ? 'from the operator into' : 'out of'} the treasury of chain ${chainId} (${leg.txHash} #${leg.logIndex})`);
    }
  } finally {
    chains.destroy();
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
