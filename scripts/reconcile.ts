import { parseArgs } from 'node:util';
import { formatUnits } from 'ethers';
import { createKnex } from '../db/connection';
import { isNativeToken } from '../domain/payment';
import { loadConfig } from '../lib/config';
import { loadChains, type ChainAdapters } from '../services/chains';
import { reconcileLedger, type BookReport } from '../services/ledger';

/** One line per book, and whether it balances: the sums, and the deposit addresses as the chain shows them. */
function describe(chains: ChainAdapters, report: BookReport): { line: string; ok: boolean } {
  const token = isNativeToken(report.tokenAddress) ? chains.registry.findNativeToken(report.chainId) : chains.registry.tokenByAddress(report.chainId, report.tokenAddress);
  const f = (units: bigint) => formatUnits(units, token?.decimals ?? 0);
  const ok = report.difference === 0n && report.depositsOnChain === report.depositsInLedger;
  const line =
    `chain ${report.chainId} ${token?.symbol ?? report.tokenAddress}: payins ${f(report.payins)} = payouts ${f(report.payouts)} + fees ${f(report.fees)}` +
    ` + refunds ${f(report.refunds)} + held ${f(report.held)} + in flight ${f(report.inFlight)}` +
    (report.difference === 0n ? '' : ` (difference ${f(report.difference)})`) +
    `; deposit addresses hold ${f(report.depositsOnChain)} on chain, ${f(report.depositsInLedger)} in the ledger` +
    (report.quarantined === 0n ? '' : `; quarantined ${f(report.quarantined)} (a token nobody configured, never counted)`) +
    (ok ? ' — ok' : ' — DIFFERENCE');
  return { line, ok };
}

/**
 * `npm run reconcile`: sums the conservation ledger per chain and token, compares what the deposit addresses hold
 * on chain with it, prints `payins = payouts + fees + refunds + held + in flight` per book, and exits non-zero on
 * any difference. Reads DATABASE_URL and PAYRAIL_CHAINS_FILE like the worker. `-- --app <appId>` reconciles the
 * payments of one merchant app.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { app: { type: 'string' } } });
  const config = loadConfig();
  const knex = createKnex(config.databaseUrl, { max: 2 });
  const chains = loadChains(config, 'deposits');
  try {
    const lines = (await reconcileLedger({ knex, chains }, { appId: values.app })).map((r) => describe(chains, r));
    for (const { line } of lines) console.log(line);
    if (lines.length === 0) console.log('the ledger is empty');
    if (lines.some((l) => !l.ok)) process.exitCode = 1;
  } finally {
    chains.destroy();
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});
