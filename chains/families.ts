/**
 * The chain families Payrail serves, written once. The chains file's schema (chains/registry.ts), the adapters and
 * the keys they are made with (chains/adapters.ts) and the API's list of families are derived from this list; a new
 * family is its folder (`chains/<family>/index.ts` exporting its `ChainFamily`) and one entry here. A chains-file
 * entry without a `family` is of the first family (EVM: files written before families existed).
 */
import { evm } from './evm';
import type { ChainFamily } from './family';
import { solana } from './solana';
import { stellar } from './stellar';
import { ton } from './ton';
import { tron } from './tron';

export const CHAIN_FAMILIES = [evm, solana, ton, tron, stellar] as const;

export type ChainFamilyId = (typeof CHAIN_FAMILIES)[number]['id'];

/** The families' ids, in the list's order. */
export const CHAIN_FAMILY_IDS = CHAIN_FAMILIES.map((family) => family.id) as [ChainFamilyId, ...ChainFamilyId[]];

/** The family of a configured chain (its `family`), whose members take that chain's config. */
export function chainFamily(id: string): ChainFamily {
  const family: ChainFamily | undefined = CHAIN_FAMILIES.find((f) => f.id === id);
  if (!family) throw new Error(`${id} is not a chain family`);
  return family;
}
