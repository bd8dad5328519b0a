/** The chains this deployment serves, for entry points that build services (the API server, the worker, scripts). */
import { depositVariablesOf, loadChainAdapters, signingVariablesIn, withoutSigningVariables, type ChainAdapters, type KeyRole } from '../chains/adapters';
import { CHAIN_FAMILY_IDS } from '../chains/families';
import type { ChainRegistry } from '../chains/registry';
import type { AppConfig } from '../lib/config';

export type { ChainAdapters, ChainRegistry, KeyRole };
export { depositVariablesOf, signingVariablesIn, withoutSigningVariables };
export { CHAIN_FAMILY_IDS };

/**
 * The configured chains' adapters with the keys `role` holds, each family reading its own variables from the
 * environment: a worker every signing and deposit key, the API and read-only scripts only the public data deposit
 * addresses follow from (`deposits`), never a key that moves money. Missing or invalid keys fail here, at start-up, naming the variable.
 */
export const loadChains = (config: AppConfig, role: KeyRole): ChainAdapters => loadChainAdapters(config.chainsFile, config.env, role);

/**
 * The record with its deposit address as the family's wallets write it (a TON deposit non-bounceable, `UQ…`), as
 * the API shows payments and orders; the stored form is what every input form of the address normalizes to.
 */
export function withDisplayedDeposit<R extends { source_chain_id: number; deposit_address: string }>(registry: ChainRegistry, record: R): R {
  return { ...record, deposit_address: registry.displayAddress(record.source_chain_id, record.deposit_address) };
}
