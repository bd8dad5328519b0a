import { parseArgs } from 'node:util';
import { createKnex } from '../db/connection';
import { parseUnits } from '../domain/money';
import { loadConfig } from '../lib/config';
import { loadChains } from '../services/chains';
import { recordFunding } from '../services/ledger';

const USAGE = 'usage: npm run fund -- --chain <chainId> --token <symbol|native> --tx <hash> --amount <decimal> [--index <transfer index in the transaction, default 0>]';

/**
 * `npm run fund`: books money the operator sent into a treasury (operator → treasury), once per transfer. The
 * transfer is read from the chain by its identity (transaction and index, as the family numbers transfers) and must
 * be into this chain's treasury, of the named asset and amount, at the chain's confirmation depth; the ledger then
 * takes the chain's figures. Without it, reconcile shows the treasury holding more than the ledger says. Reads
 * DATABASE_URL, PAYRAIL_CHAINS_FILE and the worker's keys (the treasury's address).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { chain: { type: 'string' }, token: { type: 'string' }, tx: { type: 'string' }, amount: { type: 'string' }, index: { type: 'string', default: '0' } } });
  if (!values.chain || !values.token || !values.tx || !values.amount) throw new Error(USAGE);
  const config = loadConfig();
  const chains = loadChains(config, 'worker');
  const knex = createKnex(config.databaseUrl, { max: 2 });
  try {
    const chainId = Number(values.chain);
    const chain = chains.registry.chain(chainId);
    const token = values.token === 'native' ? chains.registry.findNativeToken(chainId) : chains.registry.findToken(chainId, values.token);
    if (!token) throw new Error(`chain ${chainId} has no ${values.token} configured`);
    const adapter = chains.adapter(chainId);
    const treasury = adapter.treasuryAddress();
    const transfer = { chainId, txHash: values.tx, logIndex: Number(values.index), blockNumber: 0, tokenAddress: token.address, from: '', to: treasury, amountUnits: parseUnits(values.amount, token.decimals).toString() };
    const check = await adapter.checkPayin(transfer, chain.confirmations);
    if (check.state !== 'confirmed') throw new Error(`the chain shows no confirmed transfer of ${values.amount} ${token.symbol} into the treasury ${treasury} at ${values.tx} #${values.index} (${check.state})`);
    const { payin } = check;
    await recordFunding({ knex }, { ref: `funding:${chainId}:${payin.txHash}:${payin.logIndex}`, chainId, tokenAddress: payin.tokenAddress, account: 'treasury', address: treasury, amountUnits: payin.amountUnits });
    console.log(`booked: ${values.amount} ${token.symbol} from the operator into the treasury ${treasury} of chain ${chainId} (${payin.txHash})`);
  } finally {
    chains.destroy();
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
