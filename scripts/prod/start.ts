import path from 'node:path';
import { startProdStack } from './stack';

/**
 * `npm run stack:prod`: the production topology on this machine (see scripts/prod/stack.ts). Every port can be
 * moved by env; API_PORTS and WORKER_HEALTH_PORTS (comma-separated) also choose how many processes run.
 */
async function main(): Promise<void> {
  const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const ports = (name: string, fallback: number[]) => (process.env[name]?.split(',').map(Number) ?? fallback);
  const workerHealth = ports('WORKER_HEALTH_PORTS', [9101, 9102, 9103]);
  const workerSdk = ports('WORKER_SDK_METRICS_PORTS', workerHealth.map((p) => p + 100));
  const started = Date.now();
  const prod = await startProdStack({
    varDir: path.resolve(process.env.PAYRAIL_VAR_DIR ?? 'var/prod'),
    persistent: true,
    ports: {
      apis: ports('API_PORTS', [8080, 8081]),
      workers: workerHealth.map((health, i) => ({ health, sdkMetrics: workerSdk[i] ?? health + 100 })),
      postgres: port('POSTGRES_PORT', 54329),
      temporal: port('TEMPORAL_PORT', 7233),
      temporalUi: port('TEMPORAL_UI_PORT', 8233),
      chains: [port('DEVNET_ARBITRUM_PORT', 8545), port('DEVNET_BASE_PORT', 8546)],
      solana: port('DEVNET_SOLANA_PORT', 8899),
      ton: port('DEVNET_TON_PORT', 8548),
      tron: port('DEVNET_TRON_PORT', 8090),
      stellar: port('DEVNET_STELLAR_PORT', 8000),
      mailSink: { smtp: port('MAIL_SINK_SMTP_PORT', 2525), http: port('MAIL_SINK_HTTP_PORT', 8025) },
    },
    blockTimeMs: port('DEVNET_BLOCK_TIME_MS', 1000),
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...process.env },
    log: (line) => console.log(`[payrail:prod] ${line}`),
  });
  const { info } = prod;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`
Payrail (production topology) is running (ready in ${seconds}s). Logs: ${prod.logDir}/

${prod.apis.map((api) => `  ${api.name.padEnd(10)} ${api.healthUrl}   (/livez /readyz /metrics, /v1/payment-api …)   log: ${api.options.logFile}`).join('\n')}
${prod.workers.map((w) => `  ${w.name.padEnd(10)} ${w.healthUrl}   (/livez /readyz /metrics; SDK metrics http://${w.options.env.TEMPORAL_METRICS_BIND_ADDRESS}/metrics)   log: ${w.options.logFile}`).join('\n')}
  Temporal   ${info.temporalAddress} (server on PostgreSQL)   UI: ${prod.temporal.uiUrl ?? '(none)'}
  PostgreSQL ${prod.postgres ? 'embedded' : 'external (DATABASE_URL)'}
  Mail sink  ${info.mailSinkUrl ?? '(external SMTP_URL)'}
${info.chains.map((c) => `  ${c.name.padEnd(16)} ${c.rpcUrl}  (chain ${c.chainId})`).join('\n')}
  Demo merchant ${info.demoMerchant.appId}, key ${info.demoMerchant.ordersKey}

Create a payment on either API (the same curl as \`npm start\` prints), pay it with: npm run pay -- <payment id>
Press Ctrl-C to stop everything.
`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    console.log('\n[payrail:prod] stopping…');
    void prod.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error('[payrail:prod] failed to start:', err);
  process.exit(1);
});
