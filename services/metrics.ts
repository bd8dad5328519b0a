/**
 * Gauges of shared state, read from PostgreSQL and the chains when /metrics is scraped (every worker reports the
 * same values; dashboards take max()). Counters and histograms of events live in lib/metrics.ts.
 */
import { formatUnits } from 'ethers';
import type { Knex } from 'knex';
import { Gauge, type Registry } from 'prom-client';
import type { ChainAdapters } from '../chains/adapters';
import {
  countCallbackAttemptsByOutcome,
  countChainTxsByStatus,
  countOrdersByStatus,
  countPaymentsByStatus,
  countReplacedChainTxAttempts,
  countWebhookDeliveriesByStatus,
  listChainCursorBlocks,
  type LabelledCount,
} from '../db/queries/metrics';
import { findLatestLedgerReconciliation } from '../db/queries/ledger';
import { listBridgingRebalances } from '../db/queries/rebalances';
import { ORDER_STATUSES } from '../domain/orders';
import { PAYMENT_STATUSES } from '../domain/payment';
import { METRIC_PREFIX } from '../lib/metrics';
import { floatPosition } from '../domain/float';
import { rebalancePlan, readTreasuryFloats } from './treasury-float';

/** chain_txs statuses as operators name them: signed and broadcast but not mined is pending, reverted is failed. */
const CHAIN_TX_STATUS: Record<string, string> = { signed: 'pending', confirmed: 'confirmed', reverted: 'failed' };

export function registerStateGauges(registry: Registry, deps: { knex: Knex; chains: ChainAdapters }): void {
  const { knex, chains } = deps;
  const chainIds = chains.registry.chains.map((chain) => String(chain.chainId));
  /** A gauge per label values counted in PostgreSQL; `zeroes` are reported as 0 when no row has them (yet). */
  const fromCounts = <L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    zeroes: Array<Record<L, string>>,
    read: () => Promise<Array<LabelledCount<L>>>,
  ) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const counts = await read();
        this.reset();
        for (const labels of zeroes) this.set(labels as Partial<Record<L, string>>, 0);
        for (const { labels, count } of counts) this.set(labels as Partial<Record<L, string>>, count);
      },
    });
  const each = <L extends string>(label: L, values: readonly string[]) => values.map((value) => ({ [label]: value }) as Record<L, string>);

  fromCounts('payments', 'Payments by status', ['status'], each('status', PAYMENT_STATUSES), () => countPaymentsByStatus({ knex }));
  fromCounts('orders', 'Legacy orders by status', ['status'], each('status', ORDER_STATUSES), () => countOrdersByStatus({ knex }));
  fromCounts(
    'chain_transactions',
    'Chain transactions signed by the treasury, by chain and status (pending, confirmed, failed)',
    ['chain', 'status'],
    chainIds.flatMap((chain) => Object.values(CHAIN_TX_STATUS).map((status) => ({ chain, status }))),
    async () =>
      (await countChainTxsByStatus({ knex })).map(({ labels, count }) => ({ labels: { chain: labels.chain, status: CHAIN_TX_STATUS[labels.status] ?? labels.status }, count })),
  );
  fromCounts('chain_transactions_replaced', 'Broadcast attempts replaced at their nonce (fee bumps, re-plans), by chain', ['chain'], each('chain', chainIds), () =>
    countReplacedChainTxAttempts({ knex }),
  );
  fromCounts('webhook_deliveries', 'Webhook events by delivery outcome (pending, delivered, exhausted)', ['status'], each('status', ['pending', 'delivered', 'exhausted']), () =>
    countWebhookDeliveriesByStatus({ knex }),
  );
  fromCounts('order_callback_attempts', 'Legacy order callback attempts by outcome (2xx, 3xx, 4xx, 5xx, error)', ['outcome'], each('outcome', ['2xx', '3xx', '4xx', '5xx', 'error']), () =>
    countCallbackAttemptsByOutcome({ knex }),
  );

  new Gauge({
    name: `${METRIC_PREFIX}reconcile_differences`,
    help: "The ledger reconciler's latest reading: accounts whose chain balance differs from the ledger (account), bridge transfers stuck in transit (stuck_bridge)",
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const latest = await findLatestLedgerReconciliation({ knex });
      this.reset();
      this.set({ kind: 'account' }, latest?.differences ?? 0);
      this.set({ kind: 'stuck_bridge' }, latest?.stuckBridges ?? 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}reconcile_last_run_timestamp_seconds`,
    help: "When the ledger reconciler last compared the ledger with the chains (Unix seconds; 0: never)",
    registers: [registry],
    async collect() {
      const latest = await findLatestLedgerReconciliation({ knex });
      this.set(latest ? latest.reconciledAt.getTime() / 1000 : 0);
    },
  });

  new Gauge({
    name: `${METRIC_PREFIX}watcher_lag_blocks`,
    help: "Chain head minus the chain watcher's cursor",
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      const cursors = await listChainCursorBlocks({ knex });
      this.reset();
      await Promise.all(
        cursors
          .filter((cursor) => chains.registry.chains.some((chain) => chain.chainId === cursor.chainId))
          .map(async ({ chainId, blockNumber }) => {
            const head = await chains.adapter(chainId).head().catch(() => undefined);
            if (head !== undefined) this.set({ chain: String(chainId) }, Math.max(0, head - blockNumber));
          }),
      );
    },
  });

  new Gauge({
    name: `${METRIC_PREFIX}treasury_balance`,
    // A float in whole tokens: fine for a chart, never used to move money.
    help: "The treasury's balance per chain and token, in whole tokens",
    labelNames: ['chain', 'token'],
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        chains.registry.chains.flatMap((chain) =>
          Object.entries(chain.tokens).map(async ([symbol, token]) => {
            const units = await chains.treasuryBalance(chain.chainId, token.address).catch(() => undefined);
            if (units !== undefined) this.set({ chain: String(chain.chainId), token: symbol }, Number(formatUnits(units, token.decimals)));
          }),
        ),
      );
    },
  });

  // The floats are read once per scrape, for all three gauges below (each collects from the same reading).
  let reading: ReturnType<typeof readTreasuryFloats> | undefined;
  const floats = () => (reading ??= readTreasuryFloats(deps).finally(() => setTimeout(() => (reading = undefined), 1_000)));
  const whole = (units: bigint, decimals: number) => Number(formatUnits(units, decimals));
  new Gauge({
    name: `${METRIC_PREFIX}treasury_float`,
    help: "The treasury's float per chain and token, in whole tokens: its balance less open reservations (payouts and merchant refunds); position is short, within or surplus against the token's floatMarks",
    labelNames: ['chain', 'token', 'position'],
    registers: [registry],
    async collect() {
      const read = await floats();
      this.reset();
      for (const f of read) this.set({ chain: String(f.chainId), token: f.symbol, position: floatPosition(f) }, whole(f.floatUnits, f.decimals));
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}treasury_float_mark`,
    help: "The token's configured float marks per chain (floatMarks in the chains file), in whole tokens",
    labelNames: ['chain', 'token', 'mark'],
    registers: [registry],
    async collect() {
      const read = await floats();
      this.reset();
      for (const f of read) {
        this.set({ chain: String(f.chainId), token: f.symbol, mark: 'low' }, whole(f.lowUnits, f.decimals));
        this.set({ chain: String(f.chainId), token: f.symbol, mark: 'high' }, whole(f.highUnits, f.decimals));
      }
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}rebalance_needed`,
    help: 'What a short treasury lacks up to its high mark, in whole tokens: route bridge (a bridge connects it to a treasury above its high mark) or operator (a manual transfer; from is the treasury that can give, or none)',
    labelNames: ['chain', 'token', 'from', 'route'],
    registers: [registry],
    async collect() {
      const read = await floats();
      this.reset();
      for (const r of rebalancePlan(chains, read)) {
        const decimals = read.find((f) => f.chainId === r.toChainId && f.symbol === r.symbol)!.decimals;
        this.set({ chain: String(r.toChainId), token: r.symbol, from: r.fromChainId === null ? 'none' : String(r.fromChainId), route: r.route }, whole(r.amountUnits, decimals));
      }
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}rebalances_in_flight`,
    help: 'Rebalances bridging now, per route: the amount taken from the source treasury (from) for the short one (chain), in whole tokens',
    labelNames: ['chain', 'token', 'from'],
    registers: [registry],
    async collect() {
      const open = await listBridgingRebalances({ knex });
      this.reset();
      for (const r of open) {
        const decimals = chains.registry.findToken(r.to_chain_id, r.token_symbol)?.decimals ?? 0;
        this.set({ chain: String(r.to_chain_id), token: r.token_symbol, from: String(r.from_chain_id) }, whole(BigInt(r.amount_units), decimals));
      }
    },
  });
}
