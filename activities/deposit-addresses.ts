import { refillDepositAddressPool } from '../services/deposit-addresses';
import type { ActivityDeps } from './deps';

export function createDepositAddressActivities(deps: ActivityDeps) {
  return {
    /**
     * Idempotent in effect: tops the chain's deposit address pool up when it runs low; a repeat finds it full. Adds
     * only addresses no payment has yet, so a retry after a crash at worst leaves a few more ready.
     */
    refillDepositAddressPool: (input: { chainId: number }): Promise<{ added: number }> => refillDepositAddressPool(deps, input.chainId),
  };
}

export type DepositAddressActivities = ReturnType<typeof createDepositAddressActivities>;
