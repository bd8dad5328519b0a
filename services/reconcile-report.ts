/** Reconcile's findings as lines for an operator (`npm run reconcile`, the reconciler's log). */
import { formatUnits } from 'ethers';
import type { ChainRegistry } from '../chains/registry';
import { isNativeToken } from '../domain/payment';
import { isFailure, type AccountReport, type LedgerReconciliation, type StuckBridge } from './ledger';

const tokenOf = (registry: ChainRegistry, chainId: number, tokenAddress: string) => registry.payableByAddress(chainId, tokenAddress);

function accountLine(registry: ChainRegistry, a: AccountReport): string {
  const token = tokenOf(registry, a.chainId, a.tokenAddress);
  const f = (units: bigint) => (token ? formatUnits(units, token.decimals) : units.toString());
  const verdict = isFailure(a) ? `DIFFERENCE ${f(a.difference)}` : a.difference === 0n ? 'ok' : `in flight (differs by ${f(a.difference)} while money of ours moves)`;
  const quarantined = a.accounts.includes('quarantine') ? ' (quarantined: an asset nobody configured, never counted)' : '';
  return `chain ${a.chainId} ${a.kind} ${a.address} ${token?.symbol ?? (isNativeToken(a.tokenAddress) ? 'native' : a.tokenAddress)}: ledger ${f(a.units)}, on chain ${f(a.onChain)}${quarantined} — ${verdict}`;
}

function bridgeLine(registry: ChainRegistry, b: StuckBridge, now: Date): string {
  const token = tokenOf(registry, b.chainId, b.tokenAddress);
  const amount = token ? `${formatUnits(BigInt(b.amountUnits), token.decimals)} ${token.symbol}` : `${b.amountUnits} of ${b.tokenAddress}`;
  const seconds = Math.round((now.getTime() - b.burntAt.getTime()) / 1000);
  return `chain ${b.chainId} bridge: ${amount} of payment ${b.paymentId} burnt in ${b.burnTxHash}, in transit ${seconds} s (normal: under ${b.lateAfterMs / 1000} s) — STUCK BRIDGE`;
}

/** One line per account and asset, one per stuck bridge, and a summary. */
export function describeReconciliation(registry: ChainRegistry, result: LedgerReconciliation, now = new Date()): string[] {
  const lines = [...result.accounts.map((a) => accountLine(registry, a)), ...result.stuckBridges.map((b) => bridgeLine(registry, b, now))];
  if (result.accounts.length === 0) lines.push('the ledger is empty');
  lines.push(result.failures === 0 ? `reconciled: ${result.accounts.length} accounts — ok` : `reconciled: ${result.accounts.length} accounts — ${result.failures} FAILURES`);
  return lines;
}
