/**
 * The devnets the dev stack runs, one per chain family (chains/families.ts), written once: tools/stack/stack.ts
 * starts each, and its ports, chains-file entries, keys, customer wallets and `var/dev-stack.json` entries are
 * derived from this list. A new family's devnet is its folder (`tools/devnets/<family>/family.ts` exporting its
 * `DevnetFamily`) and one entry here.
 */
import { evmDevnet } from './evm/family';
import { solanaDevnet } from './solana/family';
import { stellarDevnet } from './stellar/family';
import { tonDevnet } from './ton/family';
import { tronDevnet } from './tron/family';

export const DEVNET_FAMILIES = [evmDevnet, solanaDevnet, tonDevnet, tronDevnet, stellarDevnet] as const;

type DevnetFamilies = (typeof DEVNET_FAMILIES)[number];

/** Each family's running devnet, by family id. */
export type RunningDevnets = { [D in DevnetFamilies as D['family']]: Awaited<ReturnType<D['start']>> };

/** One devnet chain as `var/dev-stack.json` lists it, of any family. */
export type DevStackChain = RunningDevnets[keyof RunningDevnets]['chains'][number];

/** The funded customer wallet of every family, by family id. */
export type DevStackCustomers = { [F in keyof RunningDevnets]: RunningDevnets[F]['customer'] };

/** Ports by family id: one per entry of its `ports` (0 or absent: any free port, bound by the devnet itself). */
export type DevnetPorts = Partial<Record<keyof RunningDevnets, number[]>>;
