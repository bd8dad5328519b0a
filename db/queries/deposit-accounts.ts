import type { Knex } from 'knex';
import type { DepositAccountRow, DepositAddressRow } from '../tables';

/** Watched deposits on `chainId` whose receiving accounts are not recorded yet, as the payment spells the address. */
export async function listUnrecordedDeposits(options: { knex: Knex; chainId: number }): Promise<Array<{ address: string; tokenAddress: string }>> {
  return options
    .knex<DepositAddressRow>('deposit_addresses as d')
    .join('payments as p', 'p.id', 'd.payment_id')
    .select({ address: 'p.deposit_address', tokenAddress: 'p.source_token_address' })
    .where('d.chain_id', options.chainId)
    .whereRaw('not d.accounts_recorded')
    .where('d.watch_until', '>', options.knex.fn.now());
}

/** Records the deposits' receiving accounts and marks the deposits recorded, in one transaction; idempotent. */
export async function recordDepositAccounts(options: {
  knex: Knex;
  chainId: number;
  deposits: Array<{ address: string; accounts: Array<{ account: string; tokenAddress: string }> }>;
}): Promise<void> {
  const { knex, chainId, deposits } = options;
  if (deposits.length === 0) return;
  await knex.transaction(async (trx) => {
    const rows: DepositAccountRow[] = deposits.flatMap((d) =>
      d.accounts.map((a) => ({ chain_id: chainId, account: a.account.toLowerCase(), deposit_address: d.address.toLowerCase(), token_address: a.tokenAddress })),
    );
    if (rows.length > 0) await trx<DepositAccountRow>('deposit_accounts').insert(rows).onConflict(['chain_id', 'account']).ignore();
    await trx<DepositAddressRow>('deposit_addresses')
      .where({ chain_id: chainId })
      .whereRaw('address = any(?)', [deposits.map((d) => d.address.toLowerCase())])
      .update({ accounts_recorded: true });
  });
}

/** Of `accounts` on `chainId`, those recorded for a still watched deposit: the deposit address (as the payment spells it) and the token. */
export async function findDepositAccounts(options: {
  knex: Knex;
  chainId: number;
  accounts: string[];
}): Promise<Array<{ account: string; address: string; tokenAddress: string }>> {
  if (options.accounts.length === 0) return [];
  return options
    .knex<DepositAccountRow>('deposit_accounts as a')
    .join('deposit_addresses as d', (j) => j.on('d.chain_id', 'a.chain_id').andOn('d.address', 'a.deposit_address'))
    .join('payments as p', 'p.id', 'd.payment_id')
    .select({ account: 'a.account', address: 'p.deposit_address', tokenAddress: 'a.token_address' })
    .where('a.chain_id', options.chainId)
    .whereRaw('a.account = any(?)', [options.accounts.map((a) => a.toLowerCase())])
    .where('d.watch_until', '>', options.knex.fn.now());
}
