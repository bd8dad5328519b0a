import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan } from './open-deposits';
import type { Figure } from './report';

/**
 * A TON watcher scan with 100,000 open TON deposits against one: the scan reads the range's shard blocks whole and
 * matches their accounts against the deposits' recorded accounts (each deposit wallet and its USDT jetton wallet,
 * recorded once when the deposit is new) in one query.
 */
export function benchTonScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const ton = stackChain(stack.info, 'ton');
  const newAddress = () => `0:${randomBytes(32).toString('hex')}`;
  return benchOpenDepositScan(
    stack,
    knex,
    {
      label: 'TON',
      chainId: ton.chainId,
      token: { symbol: 'TON', address: NATIVE_TOKEN_ADDRESS, decimals: ton.nativeCurrency.decimals },
      newAddress,
      accounts: (address) => [
        { account: address, tokenAddress: NATIVE_TOKEN_ADDRESS },
        { account: newAddress(), tokenAddress: ton.tokens.USDT.address },
      ],
    },
    log,
  );
}
