/** The chains this deployment serves, for entry points that build services (the API server, the worker, scripts). */
import type { ChainKeys } from '../chains/adapters';
import type { AppConfig } from '../lib/config';

export { loadChainAdapters, type ChainAdapters, type ChainKeys } from '../chains/adapters';

/** Every key a worker signs with. */
export const chainKeys = (config: AppConfig): ChainKeys => ({ evmTreasuryPrivateKey: config.treasuryPrivateKey, solana: config.solana, ton: config.ton, tron: config.tron, stellar: config.stellar });

/** Only what deposit addresses need: the API never holds a treasury key. */
export const depositKeys = (config: AppConfig): ChainKeys => ({ solana: { depositSeed: config.solana.depositSeed }, ton: { depositSeed: config.ton.depositSeed }, tron: { depositSeed: config.tron.depositSeed } });
