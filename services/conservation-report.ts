/**
 * The conservation identity as `npm run reconcile` proves it (domain/conservation.ts): per chain and asset, and per
 * token across chains, payins = payouts + fees + refunds + held + in flight + float moved, with the on-chain terms as
 * reconcile read them. An asset with an account in flight is listed, never failed, as reconcile's accounts are.
 */
import { formatUnits } from 'ethers';
import type { Knex } from 'knex';
import type { ChainRegistry } from '../chains/registry';
import { addConservation, conservationOf, type ConservationTerms, type LedgerFlow } from '../domain/conservation';
import { sumLedgerFlows } from '../db/queries/ledger';
import type { LedgerReconciliation } from './ledger';

interface AssetIdentity {
  chainId: number;
  symbol: string;
  decimals: number;
  terms: ConservationTerms;
  inFlight: boolean;
}

function identityLine(name: string, t: ConservationTerms, decimals: number, inFlight: boolean): string {
  const f = (units: bigint) => formatUnits(units, decimals);
  const verdict = t.difference === 0n ? 'holds' : inFlight ? `in flight (differs by ${f(t.difference)} while money of ours moves)` : `DIFFERENCE ${f(t.difference)}`;
  return (
    `${name}: payins ${f(t.payins)} = payouts ${f(t.payouts)} + fees ${f(t.fees)} + refunds ${f(t.refunds)} + held ${f(t.held)} + ` +
    `in flight ${f(t.inFlight)} + float moved ${f(t.floatMoved)} — ${verdict}`
  );
}

/** The identity's lines (each configured asset per chain, then each token across chains) and how many fail. */
export async function describeConservation(deps: { knex: Knex; registry: ChainRegistry }, result: LedgerReconciliation): Promise<{ lines: string[]; failures: number }> {
  const byAsset = new Map<string, LedgerFlow[]>();
  for (const flow of await sumLedgerFlows({ knex: deps.knex })) {
    const key = `${flow.chainId}:${flow.tokenAddress}`;
    byAsset.set(key, [...(byAsset.get(key) ?? []), flow]);
  }
  const assets: AssetIdentity[] = [];
  for (const flows of byAsset.values()) {
    const { chainId, tokenAddress } = flows[0]!;
    const token = deps.registry.payableByAddress(chainId, tokenAddress);
    // An asset nobody configured is quarantined, never counted: it has no place in the identity.
    if (!token) continue;
    const accounts = result.accounts.filter((a) => a.chainId === chainId && a.tokenAddress.toLowerCase() === tokenAddress);
    const onChainAt = (treasury: boolean) => accounts.filter((a) => (a.kind === 'treasury') === treasury).reduce((sum, a) => sum + a.onChain, 0n);
    const terms = conservationOf(flows, { atDeposits: onChainAt(false), treasury: onChainAt(true) });
    assets.push({ chainId, symbol: token.symbol, decimals: token.decimals, terms, inFlight: accounts.some((a) => a.inFlight) });
  }
  const perChain = assets.sort((a, b) => a.chainId - b.chainId || a.symbol.localeCompare(b.symbol));
  const lines = perChain.map((a) => identityLine(`chain ${a.chainId} ${a.symbol}`, a.terms, a.decimals, a.inFlight));
  let failures = perChain.filter((a) => a.terms.difference !== 0n && !a.inFlight).length;
  for (const symbol of [...new Set(perChain.map((a) => a.symbol))].sort()) {
    const ofToken = perChain.filter((a) => a.symbol === symbol);
    // In the token's largest decimals, so chains with fewer add up exactly.
    const decimals = Math.max(...ofToken.map((a) => a.decimals));
    const total = addConservation(ofToken, decimals);
    const inFlight = ofToken.some((a) => a.inFlight);
    lines.push(identityLine(`${symbol} across ${ofToken.length} chain(s)`, total, decimals, inFlight));
    if (total.difference !== 0n && !inFlight) failures++;
  }
  return { lines, failures };
}
