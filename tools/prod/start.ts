import path from 'node:path';
import { developerEnv, envBlockTimeMs, envPorts, infrastructurePorts, runUntilStopped } from '../stack/launch';
import { startProdStack, type ProdStack } from './stack';

/**
 * `npm run stack:prod`: the production topology on this machine (see tools/prod/stack.ts). Every port can be
 * moved by env; API_PORTS and WORKER_HEALTH_PORTS (comma-separated) also choose how many processes run.
 */
runUntilStopped(
  'payrail:prod',
  () => {
    const workerHealth = envPorts('WORKER_HEALTH_PORTS', [9101, 9102, 9103]);
    const workerSdk = envPorts('WORKER_SDK_METRICS_PORTS', workerHealth.map((p) => p + 100));
    const apiPorts = envPorts('API_PORTS', [8080, 8081]);
    const apiMetrics = envPorts('API_METRICS_PORTS', apiPorts.map((p) => p + 1000));
    return startProdStack({
      varDir: path.resolve(process.env.PAYRAIL_VAR_DIR ?? 'var/prod'),
      persistent: true,
      ports: {
        ...infrastructurePorts(),
        apis: apiPorts.map((http, i) => ({ http, metrics: apiMetrics[i] ?? http + 1000 })),
        workers: workerHealth.map((health, i) => ({ health, sdkMetrics: workerSdk[i] ?? health + 100 })),
      },
      blockTimeMs: envBlockTimeMs(),
      // The operator's switch for the UI's write actions (signal, cancel, terminate, reset, start), named as in the UI's
      // image (docker-compose.yml); read-only otherwise.
      temporalUiWriteActions: process.env.TEMPORAL_DISABLE_WRITE_ACTIONS === 'false',
      env: developerEnv(),
      log: (line) => console.log(`[payrail:prod] ${line}`),
    });
  },
  describe,
);

function describe(prod: ProdStack, seconds: string): string {
  const { info } = prod;
  return `
Payrail (production topology) is running (ready in ${seconds}s). Logs: ${prod.logDir}/

${prod.apis.map((api) => `  ${api.name.padEnd(10)} ${api.healthUrl}   (/livez /readyz, /v1/payment-api …; metrics ${api.options.metricsUrl})   log: ${api.options.logFile}`).join('\n')}
${prod.workers.map((w) => `  ${w.name.padEnd(10)} ${w.healthUrl}   (/livez /readyz /metrics; SDK metrics http://${w.options.env.TEMPORAL_METRICS_BIND_ADDRESS}/metrics)   log: ${w.options.logFile}`).join('\n')}
  Temporal   ${info.temporalAddress} (server on PostgreSQL, mTLS: certificates in ${path.dirname(prod.temporal.tls.caFile)})   UI: ${prod.temporal.uiUrl ?? '(none)'} (${process.env.TEMPORAL_DISABLE_WRITE_ACTIONS === 'false' ? 'write actions on' : 'read-only; TEMPORAL_DISABLE_WRITE_ACTIONS=false turns writes on'})
  PostgreSQL ${prod.postgres ? 'embedded' : 'external (DATABASE_URL)'}
  Mail sink  ${info.mailSinkUrl ?? '(external SMTP_URL)'}
${info.chains.map((c) => `  ${c.name.padEnd(16)} ${c.rpcUrl}  (chain ${c.chainId})`).join('\n')}
  Demo merchant ${info.demoMerchant.appId}, key ${info.demoMerchant.ordersKey}

Create a payment on either API (the same curl as \`npm start\` prints), pay it with: npm run pay -- <payment id>
Press Ctrl-C to stop everything.
`;
}
