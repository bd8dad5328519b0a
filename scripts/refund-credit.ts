import { loadConfig } from '../lib/config';
import { createKnex } from '../db/connection';
import { findMerchantApp, updateRefundCredit } from '../db/queries/merchants';
import { sumAppReceivable } from '../db/queries/ledger';
import { ChainRegistry } from '../chains/registry';
import { formatUnits, parseUnits } from '../domain/money';

/**
 * `npm run refund-credit -- <appId> [<amount>]`: what the app owes for its refunds and may owe (its refund credit, in
 * whole payout tokens); with `<amount>`, sets the credit. Refunds beyond it are refused (docs/operations.md).
 */
async function main(): Promise<void> {
  const [appId, amount] = process.argv.slice(2);
  if (!appId) throw new Error('usage: npm run refund-credit -- <appId> [<amount>]');
  const config = loadConfig();
  const knex = createKnex(config.databaseUrl, { max: 1 });
  try {
    let app = await findMerchantApp({ knex, appId });
    if (!app) throw new Error(`no app ${appId}`);
    const token = ChainRegistry.fromFile(config.chainsFile).chain(app.payout_chain_id).tokens[app.payout_token_symbol];
    if (!token) throw new Error(`${appId} is paid out in ${app.payout_token_symbol}, which chain ${app.payout_chain_id} does not configure`);
    if (amount !== undefined) {
      parseUnits(amount, token.decimals);
      app = (await updateRefundCredit({ knex, appId, refundCredit: amount }))!;
    }
    const owed = await sumAppReceivable({ knex, appId, chainId: app.payout_chain_id, tokenAddress: token.address });
    console.log(JSON.stringify({ appId, payout: `${app.payout_token_symbol} on ${app.payout_chain_id}`, refundCredit: app.refund_credit, owed: formatUnits(owed, token.decimals) }));
  } finally {
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
