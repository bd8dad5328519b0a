/**
 * The treasuries' float as `npm run reconcile` shows it: each treasury's position against its marks (its balance on
 * chain, as reconcile read it, less open reservations), the totals of each token across chains, the
 * rebalances bridging and the needs no bridge meets (an operator's transfer). Reads no key: treasuries are the
 * addresses the ledger names.
 */
import { formatUnits } from 'ethers';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { sumFloatTransfers } from '../db/queries/ledger';
import { listBridgingRebalances } from '../db/queries/rebalances';
import { sumOpenReservations } from '../db/queries/treasury-reservations';
import { floatPosition } from '../domain/float';
import { parseUnits } from '../domain/money';
import type { LedgerReconciliation } from './ledger';
import { rebalancePlan, type TreasuryFloatReading } from './treasury-float';

/** Lines for an operator, after reconcile's account lines. */
export async function describeFloats(deps: { knex: Knex; chains: ChainAdapters }, reconciliation: LedgerReconciliation, now = new Date()): Promise<string[]> {
  const { registry } = deps.chains;
  const reserved = await sumOpenReservations({ knex: deps.knex });
  const floats: Array<TreasuryFloatReading & { ledgerUnits: bigint; onChainUnits: bigint }> = [];
  for (const a of reconciliation.accounts.filter((a) => a.kind === 'treasury')) {
    const token = registry.tokenByAddress(a.chainId, a.tokenAddress);
    if (!token) continue;
    const held = reserved.find((r) => r.chainId === a.chainId && r.tokenAddress === a.tokenAddress.toLowerCase())?.units ?? 0n;
    floats.push({
      chainId: a.chainId, symbol: token.symbol, decimals: token.decimals, floatUnits: a.onChain - held, ledgerUnits: a.units, onChainUnits: a.onChain,
      lowUnits: parseUnits(token.floatMarks.low, token.decimals), highUnits: parseUnits(token.floatMarks.high, token.decimals),
    });
  }
  const amount = (units: bigint, decimals: number, symbol: string) => `${formatUnits(units, decimals)} ${symbol}`;
  const lines = floats.map((f) => {
    const position = floatPosition(f);
    return `chain ${f.chainId} treasury float ${f.symbol}: ${formatUnits(f.floatUnits, f.decimals)} (marks ${formatUnits(f.lowUnits, f.decimals)} / ${formatUnits(f.highUnits, f.decimals)}) — ${position === 'short' ? 'SHORT' : position}`;
  });
  const bridging = await listBridgingRebalances({ knex: deps.knex });
  const manual = await sumFloatTransfers({ knex: deps.knex });
  for (const symbol of [...new Set(floats.map((f) => f.symbol))].sort()) {
    const ofToken = floats.filter((f) => f.symbol === symbol);
    // Cross-chain totals in the token's largest decimals, so chains with fewer add up exactly.
    const decimals = Math.max(...ofToken.map((f) => f.decimals));
    const scale = (units: bigint, from: number) => units * 10n ** BigInt(decimals - from);
    const sum = (pick: (f: (typeof ofToken)[number]) => bigint) => ofToken.reduce((s, f) => s + scale(pick(f), f.decimals), 0n);
    const inFlight = bridging.filter((r) => r.token_symbol === symbol).reduce((s, r) => s + scale(BigInt(r.amount_units), registry.token(r.from_chain_id, symbol).decimals), 0n);
    const withOperator = manual.reduce((s, m) => {
      const token = registry.tokenByAddress(m.chainId, m.tokenAddress);
      return token?.symbol === symbol ? s + scale(m.outUnits - m.inUnits, token.decimals) : s;
    }, 0n);
    lines.push(
      `${symbol} across ${ofToken.length} chains: treasuries ${amount(sum((f) => f.onChainUnits), decimals, symbol)} on chain, ${amount(sum((f) => f.ledgerUnits), decimals, symbol)} by the ledger; ` +
        `in flight by rebalance ${amount(inFlight, decimals, symbol)}; moved by operators, not yet back in a treasury ${amount(withOperator, decimals, symbol)}`,
    );
  }
  for (const r of bridging) {
    const { decimals } = registry.token(r.from_chain_id, r.token_symbol);
    const seconds = Math.round((now.getTime() - r.created_at.getTime()) / 1000);
    lines.push(`rebalance ${r.id}: ${amount(BigInt(r.amount_units), decimals, r.token_symbol)} chain ${r.from_chain_id} → chain ${r.to_chain_id} by ${r.quote?.kind ?? 'bridge (not yet quoted)'}, bridging for ${seconds} s — IN FLIGHT`);
  }
  for (const need of rebalancePlan(deps.chains, floats).filter((r) => r.route === 'operator')) {
    const { decimals } = registry.token(need.toChainId, need.symbol);
    const from = need.fromChainId === null ? 'no treasury above its high mark can give' : `chain ${need.fromChainId} can give`;
    lines.push(`chain ${need.toChainId} needs ${amount(need.amountUnits, decimals, need.symbol)} by an operator's transfer (no bridge; ${from}; book each leg with npm run float:record-transfer) — REBALANCE NEEDED`);
  }
  return lines;
}
