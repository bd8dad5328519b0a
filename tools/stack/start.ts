import path from 'node:path';
import { Service } from '../prod/service';
import { developerEnv, devStackInfoFile, devVarDir, envBlockTimeMs, envPort, infrastructurePorts, runUntilStopped } from './launch';
import { freePort } from './ports';
import { startStack, type Stack } from './stack';

const log = (line: string) => console.log(`[payrail] ${line}`);

/**
 * `npm start`: the whole system on this machine, no configuration needed; every port can be moved by env. The worker
 * runs in its own process, as in production: the API process holds no spending key, and a burst's workflows,
 * signing and chain waits never share an event loop with the merchants' and customers' requests.
 */
runUntilStopped(
  'payrail',
  async () => {
    const stack = await startStack({
      varDir: devVarDir(),
      persistent: true,
      worker: false,
      ports: { ...infrastructurePorts(), http: envPort('HTTP_PORT', 8080) },
      blockTimeMs: envBlockTimeMs(),
      env: developerEnv(),
      log,
    });
    try {
      const healthPort = await freePort();
      const worker = new Service({
        name: 'worker',
        entry: 'workers/main.ts',
        env: { ...stack.env, WORKER_HEALTH_PORT: String(healthPort) },
        // Its health server listens where the API does (HTTP_HOST).
        healthUrl: `http://${stack.config.http.host}:${healthPort}`,
        logFile: workerLogFile(),
      });
      log(`starting the worker (its log: ${workerLogFile()})…`);
      await worker.start();
      // The worker drains first (its activities finish while the chains and the database still answer).
      return { ...stack, stop: () => worker.stop().then(() => stack.stop()) };
    } catch (err) {
      await stack.stop();
      throw err;
    }
  },
  describe,
);

function workerLogFile(): string {
  return path.join(devVarDir(), 'logs', 'worker.log');
}

function describe(stack: Stack, seconds: string): string {
  const { info } = stack;
  return `
Payrail is running (ready in ${seconds}s). Stack details: ${devStackInfoFile(devVarDir())}

  Dashboard       ${info.dashboardUrl}   (log in as ${info.demoMerchant.developerEmail}; the code lands in the mail sink)
  Payment API     ${info.paymentApiUrl}
  Merchant API    ${info.merchantApiUrl}
  Legacy orders   ${info.legacyApiUrl}/v1/orders
  Temporal        ${info.temporalAddress}   UI: ${info.temporalUiUrl ?? '(external)'}
  Worker log      ${workerLogFile()}
  Mail sink       ${info.mailSinkUrl ? `${info.mailSinkUrl}/messages?to=<your e-mail>   (login codes land here)` : `(external SMTP_URL)`}
${info.chains.map((c) => `  ${c.name.padEnd(16)} ${c.rpcUrl}  (${c.family} chain ${c.chainId}, ${Object.entries(c.tokens).map(([symbol, t]) => `${symbol} ${t.address}`).join(', ')})`).join('\n')}
  Bridges         CCTP v2 (USDC), attestations at ${stack.devnets.evm.bridges.cctp.irisUrl}; LayerZero OFT (USDT), devnet relayer
  Demo merchant   ${info.demoMerchant.appId}, payout ${info.demoMerchant.payout.tokenSymbol} on ${info.demoMerchant.payout.chainId} to ${info.demoMerchant.payout.address}
                  (dashboard login: ${info.demoMerchant.developerEmail})

Create a payment:

  curl -s -X POST ${info.paymentApiUrl} \\
    -H 'Content-Type: application/json' -H 'X-API-Key: ${info.demoMerchant.ordersKey}' \\
    -d '{"type":"exactIn","orderId":"order-'$(date +%s)'","display":{"name":"Coffee","currency":"USD"},"source":{"chainId":"42161","tokenSymbol":"USDC","amount":"12.50"}}'

Or create a legacy order and open its payment_url in a browser:

  curl -s -X POST ${info.legacyApiUrl}/v1/orders \\
    -H 'Content-Type: application/json' -H 'token: ${info.demoMerchant.ordersKey}' \\
    -d '{"price_amount":19.99,"title":"Coffee","merchant_order_id":"order-'$(date +%s)'"}'

Pay from the funded customer wallet: npm run pay -- <payment id | order id>
Press Ctrl-C to stop everything.
`;
}
